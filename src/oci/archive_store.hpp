// ArchiveStore: `oci-archive:FILE[:TAG]` (a tar of an OCI image layout) and
// `docker-archive:FILE[:REF]` (what `docker save` writes and `docker load` /
// `podman load` read) as a Store.
//
// Both are staged through a LayoutStore in a private directory. Reading an
// uncompressed oci-archive indexes it once (tar_index.hpp: each member's
// offset) and stages only its small members (oci-layout, index.json, and
// every blob up to kMaxManifestBytes: manifests and most configs); larger
// blobs are streamed from the archive file itself. A compressed archive, a
// docker-archive, or one with links is extracted into the staging directory
// through TarReader, with its checks: entries that would escape it are
// refused, and so is a decompression bomb (more than 1000:1 past 64 MiB, or
// more than the staging file system's free space), before it fills TMPDIR.
//
// Writing stages into `.FILE.strata-staging` beside FILE, held by an
// exclusive lock (`.FILE.strata-staging.lock`: a second writer of the same
// archive is refused), and close() writes the tar atomically (temp file,
// fsync, rename) with the one writer of a layout as a tar (layout_tar.hpp,
// also a tar bundle's: the same layout gives the same bytes), so a failed or killed write never leaves a partial archive
// under FILE. Writing into an existing archive adds to it: its images and
// tags stay (a tag written again moves), its blobs count as present (a re-run
// moves only what is new), and they are copied from the old file into the
// new one; a write that adds nothing leaves the file as it was. A run killed
// before close() leaves its staging directory; the next writer of that
// archive resumes from it (blobs already staged are not moved again) unless
// the archive changed in between, and removes it once the archive is written. Staging directories of killed processes from before
// (`.strata-archive-PID-*` of a PID no longer running) are removed on open.
// Errors name FILE, never the staging directory.
//
// A docker-archive is written in the layout Docker 25+ uses: an OCI layout
// (bit-exact blobs and manifests) plus manifest.json and repositories for
// older loaders. Legacy archives without index.json are read from
// manifest.json, with a Docker schema 2 manifest synthesised for each image.
// Thread-safe except close().
#pragma once

#include <atomic>
#include <filesystem>
#include <memory>

#include "oci/layout_store.hpp"
#include "oci/reference.hpp"
#include "oci/tar_index.hpp"

namespace strata::oci {

enum class ArchiveFormat { kOci, kDocker };
enum class ArchiveMode { kRead, kWrite };

class ArchiveStore final : public Store {
 public:
  static Result<std::unique_ptr<ArchiveStore>> open(std::filesystem::path file, ArchiveFormat format,
                                                    ArchiveMode mode);
  ~ArchiveStore() override;

  std::string describe() const override;
  Result<Descriptor> resolve(std::string_view ref) override;
  Result<RawManifest> get_manifest(std::string_view ref) override;
  Result<void> put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) override;
  Result<bool> has_blob(const Descriptor& desc) override;
  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) override;
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override;
  Result<std::vector<std::string>> list_tags() override { return named(layout_->list_tags()); }
  Result<void> delete_manifest(const Digest& digest) override {
    changed_ = true;
    return named(layout_->delete_manifest(digest));
  }
  Result<ImageIndex> referrers(const Digest& digest) override { return named(layout_->referrers(digest)); }
  // A docker-archive's manifest.json names images by tag: a referrer has none.
  bool keeps_referrers() const override { return format_ == ArchiveFormat::kOci; }
  Result<void> close() override;

  // An error of the staging layout, naming the archive instead.
  Error named(const Error& e) const;
  // An error writing the staging directory: when reading, it is in TMPDIR
  // and the error says so (fs::temp_dir_error); when writing, it is beside
  // the archive and named().
  Error staging_error(const Error& e) const;
  template <class T>
  Result<T> staged(Result<T> r) const {
    if (!r) return std::unexpected(staging_error(r.error()));
    return r;
  }
  template <class T>
  Result<T> named(Result<T> r) const {
    if (!r) return std::unexpected(named(r.error()));
    return r;
  }

 private:
  ArchiveStore(std::filesystem::path file, ArchiveFormat format, ArchiveMode mode, std::filesystem::path staging)
      : file_(std::move(file)), format_(format), mode_(mode), staging_(std::move(staging)) {}
  static Result<std::unique_ptr<ArchiveStore>> open_for_write(std::filesystem::path file, ArchiveFormat format);
  Result<void> extract();
  // Indexes the archive file and stages its small members; false when it
  // cannot be read that way (compressed, links, no oci-layout).
  Result<bool> index_and_stage();
  // The archive's contents made readable: indexed in place when it can be
  // (index_and_stage), else extracted whole.
  Result<void> stage_contents();
  // A blob the archive file holds that is not staged.
  std::optional<TarMember> archived_blob(const Descriptor& desc) const;
  Result<void> write_tar();
  // docker-archive tags are normalised Docker references.
  Result<std::string> normalise_tag(std::string_view ref) const;

  std::filesystem::path file_;
  ArchiveFormat format_;
  ArchiveMode mode_;
  std::filesystem::path staging_;
  std::unique_ptr<LayoutStore> layout_;
  TarIndex archived_;     // the archive file's members, when indexed
  int archive_fd_ = -1;   // open on the archive file while archived_ is used
  int lock_fd_ = -1;      // writing: the staging lock
  std::filesystem::path lock_path_;
  bool existed_ = false;  // writing: FILE was there when opened
  std::atomic<bool> changed_{false};  // writing: a manifest, tag or blob was written or removed
  bool closed_ = false;
};

}  // namespace strata::oci
