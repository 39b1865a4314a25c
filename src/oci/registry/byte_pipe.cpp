#include "oci/registry/byte_pipe.hpp"

#include <algorithm>
#include <cstring>

namespace strata::oci::registry {

Result<void> BytePipe::write(std::span<const std::byte> data) {
  const std::size_t ring_size = capacity_ + 1;
  std::unique_lock lock(mutex_);
  if (!ring_ && !data.empty()) ring_.reset(new std::byte[ring_size]);  // uninitialised: pages are touched as used
  while (!data.empty()) {
    // Room is capacity plus the one held-back byte, so a full pipe can still
    // hand something to the consumer.
    changed_.wait(lock, [&] { return error_ || size_ < ring_size; });
    if (error_) return ::strata::fail(*error_);
    const std::size_t tail = (head_ + size_) % ring_size;
    const std::size_t n = std::min({data.size(), ring_size - size_, ring_size - tail});
    lock.unlock();
    std::memcpy(ring_.get() + tail, data.data(), n);  // the free region is the producer's alone
    lock.lock();
    size_ += n;
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
  const std::size_t ring_size = capacity_ + 1;
  std::unique_lock lock(mutex_);
  auto available = [&] { return finished_ ? size_ : (size_ == 0 ? 0 : size_ - 1); };
  changed_.wait(lock, [&] { return error_ || available() > 0 || finished_; });
  if (error_) return ::strata::fail(*error_);
  const std::size_t n = std::min({out.size(), available(), ring_size - head_});
  if (n == 0) return std::size_t{0};
  const std::size_t at = head_;
  lock.unlock();
  std::memcpy(out.data(), ring_.get() + at, n);  // the filled region is the consumer's alone
  lock.lock();
  head_ = (head_ + n) % ring_size;
  size_ -= n;
  changed_.notify_all();
  return n;
}

}  // namespace strata::oci::registry
