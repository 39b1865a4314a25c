#include "oci/blob_io.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "util/fs.hpp"
#include "util/writeback.hpp"

namespace strata::oci {

Result<void> StringSink::write(std::span<const std::byte> data) {
  if (written_ + data.size() > limit_) {
    overflowed_ = true;
    return fail(ErrorCode::kInvalidArgument,
                "content exceeds the limit of " + std::to_string(limit_) + " bytes");
  }
  target_->append(reinterpret_cast<const char*>(data.data()), data.size());
  written_ += data.size();
  return {};
}

Result<FileSink> FileSink::open(std::filesystem::path path, Mode mode, unsigned perms) {
  int flags = O_WRONLY | O_CREAT | (mode == Mode::kAppend ? O_APPEND : O_TRUNC);
  STRATA_TRY(int fd, fs::open_for_write(path, flags, perms));
  return FileSink(fd, std::move(path), true);
}

FileSink::FileSink(FileSink&& o) noexcept
    : fd_(std::exchange(o.fd_, -1)), path_(std::move(o.path_)), owned_(std::exchange(o.owned_, false)),
      written_(o.written_) {}

FileSink::~FileSink() {
  // Not closed by its owner, who had close() to hear of a failure: the
  // owner gave up on the file (an error path), and a destructor has no one
  // to tell.
  if (owned_ && fd_ >= 0) (void)fs::close_file(fd_, path_);
}

Result<void> FileSink::write(std::span<const std::byte> data) {
  STRATA_TRY_VOID(fs::write_all(fd_, data, path_));
  fs::start_writeback(fd_, written_, written_ + data.size());
  written_ += data.size();
  return {};
}

Result<void> FileSink::sync() { return fs::sync_file(fd_, path_); }

Result<void> FileSink::close() {
  if (!owned_ || fd_ < 0) return {};
  return fs::close_file(std::exchange(fd_, -1), path_);
}

}  // namespace strata::oci
