// An OCI layout directory as one deterministic tar (an oci-archive): the
// same files always give the same bytes, whatever the host, the order the
// files were written in or their times. Entries: blobs/, blobs/<alg>/ and
// every blob, index.json, oci-layout, in strata's tar order, mtime 0, owner
// 0:0, directories 0755 and files 0644; nothing else of the directory (the
// layout's .strata/ bookkeeping stays out).
#pragma once

#include <filesystem>
#include <string>

#include "util/error.hpp"

namespace strata::layer {

// Writes the tar of the layout in `dir` to `out` atomically (temporary file,
// fsync, rename) and returns the file's sha256 (hex).
Result<std::string> write_layout_tar(const std::filesystem::path& dir, const std::filesystem::path& out);

}  // namespace strata::layer
