// BytePipe: a bounded single-producer/single-consumer byte queue between a
// BlobWriter (producer) and the thread streaming an upload body (consumer).
//
// Memory stays under `capacity` whatever the blob size. The consumer may not
// take the final byte until the producer calls finish(): a blob whose digest
// turns out wrong at commit() is failed before the registry has received the
// whole body, so a streaming upload can never complete with bad content.
//
// The bytes live in one fixed ring buffer (allocated on the first write, so
// an idle pipe costs nothing); copies in and out are memcpy outside the lock,
// each side touching only its own region of the ring.
//
// Thread-safety: one producer thread and one consumer thread.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <span>

#include "util/error.hpp"

namespace strata::oci::registry {

class BytePipe {
 public:
  explicit BytePipe(std::size_t capacity) : capacity_(capacity == 0 ? 1 : capacity) {}

  // Producer: blocks while the pipe is full. Fails once the consumer stopped.
  Result<void> write(std::span<const std::byte> data);
  // Producer: no more bytes; releases the held-back final byte.
  void finish();
  // Either side: stops the other with `error` (the consumer's read fails,
  // the producer's write fails).
  void fail(Error error);

  // Consumer: fills `out`, returns 0 at the end; blocks while empty.
  Result<std::size_t> read(std::span<std::byte> out);

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t capacity_;
  std::unique_ptr<std::byte[]> ring_;  // capacity_ + 1 bytes (the held-back byte)
  std::size_t head_ = 0;               // next byte to read
  std::size_t size_ = 0;               // bytes in the ring
  bool finished_ = false;
  std::optional<Error> error_;
};

}  // namespace strata::oci::registry
