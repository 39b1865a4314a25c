// The cache of the filesystem metadata load_base_image builds: one file per
// base manifest digest under a directory (strata build uses
// $STRATA_HOME/basefs), so a later load of the same image reads one small
// file instead of decompressing every layer. An entry is used only when it
// is intact and holds the content (or summary) of every file the caller
// asks for; otherwise the layers are read again and the entry rewritten.
// Thread-safe: entries are written atomically, and racing writers write the
// same bytes.
#pragma once

#include <filesystem>
#include <optional>

#include "oci/digest.hpp"
#include "oci/image_fs.hpp"

namespace strata::layer {

class BaseFsCache {
 public:
  explicit BaseFsCache(std::filesystem::path dir) : dir_(std::move(dir)) {}

  // The cached filesystem of `manifest`, when present, intact and capturing
  // (and summarizing) everything `needs` asks for.
  std::optional<oci::ImageFilesystem> find(const oci::Digest& manifest, const oci::ImageFsOptions& needs) const;
  // Records `fs` for `manifest`. Best effort: a build without the cache is only slower.
  void remember(const oci::Digest& manifest, const oci::ImageFilesystem& fs) const;

  // The file an entry lives in (for tests).
  std::filesystem::path entry_path(const oci::Digest& manifest) const;

 private:
  std::filesystem::path dir_;
};

}  // namespace strata::layer
