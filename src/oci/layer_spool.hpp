// LayerSpool: entries gathered from tarballs (in any order) and by hand,
// then written as one deterministic layer (docs/format/layer.md): sorted
// (tar_path_less), every parent directory present, each hardlink set held
// by its first path in write order, numeric owners. Content is spooled to
// a temporary file as it is read, so memory stays bounded whatever the
// archive size; the written layer is spooled too (its digest is known
// before any store sees a byte). `strata import` and the toolchain layers
// are built this way. Not thread-safe; one spool per layer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "oci/compress.hpp"
#include "oci/descriptor.hpp"
#include "oci/tar_entry.hpp"
#include "oci/tar_reader.hpp"

namespace strata::oci {

class Store;

// A temporary file, unlinked when destroyed.
class TempFile {
 public:
  // In `dir` (the system temporary directory when empty); `what` goes into the name.
  static Result<TempFile> create(const std::filesystem::path& dir, std::string_view what);
  TempFile(TempFile&& o) noexcept;
  TempFile& operator=(TempFile&&) = delete;
  ~TempFile();
  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Copies `len` bytes at `offset` to `sink`.
  Result<void> copy_range(std::uint64_t offset, std::uint64_t len, ByteSink& sink) const;

 private:
  TempFile(std::string p, int fd) : path_(std::move(p)), fd_(fd) {}
  std::string path_;
  int fd_;
};

// A written layer, still in its temporary file.
struct SpooledLayer {
  TempFile file;
  LayerDigests digests;
  std::uint64_t entries = 0;
  Descriptor descriptor(Compression c) const;
  // Writes the blob into `dest` unless it is there already.
  Result<void> store_in(Store& dest, const Descriptor& desc) const;
};

class LayerSpool {
 public:
  // What becomes of one archive entry: the map may rename it (entry.path,
  // canonical, inside the layer) and change its metadata, return false to
  // leave it out, or an error that refuses the archive. It sees each entry as
  // TarReader gave it; a hardlink's target (an archive name) is re-pointed by
  // the spool to wherever the map sent that file.
  using EntryMap = std::function<Result<bool>(TarEntry& entry)>;

  static Result<LayerSpool> create(const std::filesystem::path& temp_dir);
  LayerSpool(LayerSpool&&) noexcept;
  ~LayerSpool();

  // Reads every entry of `reader`. `what` names the archive in errors.
  // Entries named twice are refused unless both are directories.
  Result<void> add_archive(TarReader& reader, const EntryMap& map, std::string_view what);
  // One entry made by hand (a directory, a symlink, a small file).
  Result<void> add(TarEntry entry, std::string_view content = {});
  // Adds missing parent directories (mode 0755, mtime `mtime`), and refuses
  // an entry below a non-directory. `what` names the input in errors.
  Result<void> complete_parents(std::int64_t mtime, std::string_view what);
  // Clamps every mtime to at most `epoch`.
  void clamp_mtimes(std::int64_t epoch);
  bool contains(const std::string& path) const;
  // Sets the permission bits of an entry already added.
  Result<void> set_mode(const std::string& path, std::uint32_t mode);
  // Paths in write order with their entries (for callers that look, e.g. at bin/).
  std::map<std::string, const TarEntry*> entries() const;

  // tar → compress → a temporary file in `temp_dir`, hashed on the way.
  Result<SpooledLayer> write(Compression compression, const std::filesystem::path& temp_dir);

 private:
  struct Item {
    TarEntry entry;
    std::uint64_t data_offset = 0;
  };
  explicit LayerSpool(TempFile content);
  Result<void> put(Item item, std::string_view what);

  std::unique_ptr<TempFile> content_;
  std::unique_ptr<FileSink> sink_;
  std::map<std::string, Item> items_;
};

}  // namespace strata::oci
