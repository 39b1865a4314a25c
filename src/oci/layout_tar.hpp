// An OCI image layout directory as one deterministic tar: the one writer of
// both a tar bundle (`bundle create --out FILE.tar`) and an oci- or
// docker-archive (ArchiveStore::close), so the same layout gives the same
// bytes whichever wrote it, whatever the host, the order the files were
// written in or their times and modes.
//
// Members: `blobs/`, each `blobs/<alg>/` and every blob in it (a file whose
// name is not a digest of that algorithm, such as a killed writer's
// temporary file, is not a blob and stays out), `index.json`, `oci-layout`
// and the optional top-level files asked for, all in strata's tar order
// (tar_path_less, docs/format/layer.md), written by TarWriter: ustar
// headers, mtime 0, owner 0:0 with no names, directories 0755, files 0644,
// no record padding. Nothing else of the directory (the layout's .strata/
// bookkeeping stays out). A file that grows or shrinks while it is written
// is an error, never a tar whose sizes lie.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "util/error.hpp"

namespace strata::oci {

// A blob of the tar whose bytes are not in the layout directory: an archive
// being added to keeps the blobs of its old file that were not staged.
struct LayoutTarBlob {
  std::uint64_t size = 0;
  // Sends exactly `size` bytes to the sink.
  std::function<Result<void>(ByteSink&)> read;
};

struct LayoutTarOptions {
  // Top-level files besides oci-layout and index.json, written when the
  // directory holds them (a docker-archive's manifest.json and repositories).
  std::vector<std::string> optional_files;
  // Blobs from elsewhere, by tar path ("blobs/sha256/<hex>"; a name of
  // another shape is not a blob and stays out); the directory's own file of
  // the same name is the one written.
  std::map<std::string, LayoutTarBlob> extra_blobs;
};

// Writes the tar of the layout in `dir` to `out` atomically (temporary file
// beside it, fsync, rename, fsync of the directory: a failure leaves
// nothing under `out`) and returns the file's sha256 (hex). oci-layout and
// index.json must be there; a missing blobs/ is an empty one.
Result<std::string> write_layout_tar(const std::filesystem::path& dir, const std::filesystem::path& out,
                                     const LayoutTarOptions& options = {});

// The same tar into a sink, as it is made: the stream a runtime's image load
// takes (oci/daemon), with no file in between. `what` names the stream in
// errors about blobs from elsewhere. A failed write of the sink ends it; what
// was sent is not a whole tar (no trailer).
Result<void> write_layout_tar_to(const std::filesystem::path& dir, ByteSink& sink, const std::string& what,
                                 const LayoutTarOptions& options = {});

}  // namespace strata::oci
