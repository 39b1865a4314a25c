#include "util/mapped_file.hpp"

#include <sys/mman.h>

#include <cerrno>
#include <utility>

#include "util/fs.hpp"

namespace strata::fs {

Result<MappedFile> MappedFile::open(const std::filesystem::path& path, std::uint64_t limit) {
  STRATA_TRY(auto file, ReadableFile::open(path));
  if (file.size() > limit) {
    return fail(ErrorCode::kInvalidArgument, path.string() + ": file is " + std::to_string(file.size()) +
                                                 " bytes, more than the limit of " + std::to_string(limit));
  }
  MappedFile out;
  if (file.size() > 0) {
    void* p = ::mmap(nullptr, static_cast<std::size_t>(file.size()), PROT_READ, MAP_PRIVATE, file.fd(), 0);
    if (p == MAP_FAILED) return std::unexpected(io_error("cannot map", path, errno));
    out.data_ = p;
    out.size_ = static_cast<std::size_t>(file.size());
  }
  return out;  // the mapping outlives the descriptor
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
  if (this != &o) {
    if (data_) ::munmap(data_, size_);
    data_ = std::exchange(o.data_, nullptr);
    size_ = std::exchange(o.size_, 0);
  }
  return *this;
}

MappedFile::~MappedFile() {
  if (data_) ::munmap(data_, size_);
}

}  // namespace strata::fs
