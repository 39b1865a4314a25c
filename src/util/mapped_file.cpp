#include "util/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "util/fs.hpp"

namespace strata::fs {


Result<MappedFile> MappedFile::open(const std::filesystem::path& path, std::uint64_t limit) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return fail(ErrorCode::kNotFound, path.string() + ": no such file");
    return std::unexpected(io_error("cannot open", path, err));
  }
  struct stat st{};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return std::unexpected(io_error("cannot stat", path, err));
  }
  if (static_cast<std::uint64_t>(st.st_size) > limit) {
    ::close(fd);
    return fail(ErrorCode::kInvalidArgument, path.string() + ": file is " + std::to_string(st.st_size) +
                                                 " bytes, more than the limit of " + std::to_string(limit));
  }
  MappedFile out;
  if (st.st_size > 0) {
    void* p = ::mmap(nullptr, static_cast<std::size_t>(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      int err = errno;
      ::close(fd);
      return std::unexpected(io_error("cannot map", path, err));
    }
    out.data_ = p;
    out.size_ = static_cast<std::size_t>(st.st_size);
  }
  ::close(fd);
  return out;
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
