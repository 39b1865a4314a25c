#include "oci/registry/byte_pipe.hpp"

#include <algorithm>

namespace strata::oci::registry {

Result<void> BytePipe::write(std::span<const std::byte> data) {
  std::unique_lock lock(mutex_);
  while (!data.empty()) {
    // Room is capacity plus the one held-back byte, so a full pipe can still
    // hand something to the consumer.
    changed_.wait(lock, [&] { return error_ || buffer_.size() < capacity_ + 1; });
    if (error_) return ::strata::fail(*error_);
    std::size_t n = std::min(data.size(), capacity_ + 1 - buffer_.size());
    buffer_.insert(buffer_.end(), data.begin(), data.begin() + static_cast<std::ptrdiff_t>(n));
    data = data.subspan(n);
    changed_.notify_all();
  }
  return {};
}

void BytePipe::finish() {
  std::lock_guard lock(mutex_);
  finished_ = true;
  changed_.notify_all();
}

void BytePipe::fail(Error error) {
  std::lock_guard lock(mutex_);
  if (!error_) error_ = std::move(error);
  changed_.notify_all();
}

Result<std::size_t> BytePipe::read(std::span<std::byte> out) {
  std::unique_lock lock(mutex_);
  auto available = [&] { return finished_ ? buffer_.size() : (buffer_.empty() ? 0 : buffer_.size() - 1); };
  changed_.wait(lock, [&] { return error_ || available() > 0 || finished_; });
  if (error_) return ::strata::fail(*error_);
  std::size_t n = std::min(out.size(), available());
  std::copy_n(buffer_.begin(), n, out.begin());
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(n));
  changed_.notify_all();
  return n;
}

}  // namespace strata::oci::registry
