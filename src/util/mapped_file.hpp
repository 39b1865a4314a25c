// A file mapped read-only into memory (mmap), for caches read in place:
// opening costs no copy, and only the pages touched are read. The mapping
// outlives renames and removals of the file (the inode stays until
// unmapped), so an atomic rewrite by another process is never seen half
// done. Not for files that are truncated in place (strata writes none).
// Thread-safe once opened; moves only.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string_view>

#include "util/error.hpp"

namespace strata::fs {

class MappedFile {
 public:
  // Maps `path` whole; refuses files larger than `limit` bytes, naming it.
  static Result<MappedFile> open(const std::filesystem::path& path, std::uint64_t limit);

  MappedFile() = default;
  MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
  MappedFile& operator=(MappedFile&& o) noexcept;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  std::string_view bytes() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace strata::fs
