// Streaming byte interfaces used by every store. Bytes are pushed: a store
// fetches a blob into a ByteSink, and a BlobWriter is a sink that commits the
// blob only after verifying its size and digest. Memory stays bounded
// whatever the blob size.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <span>
#include <string>

#include "oci/digest.hpp"

namespace strata::oci {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  virtual Result<void> write(std::span<const std::byte> data) = 0;
  // Forgets every byte this sink took, and for a resuming BlobWriter the
  // bytes an interrupted earlier attempt left, so the content can be sent
  // again from byte 0: what a download does when a server answers a ranged
  // request with the whole body (HTTP 200). Decorators pass it on. A sink
  // that cannot start over (its bytes have been consumed) returns
  // kUnsupported, the default.
  virtual Result<void> restart() {
    return fail(ErrorCode::kUnsupported, "this sink cannot start over from byte 0");
  }
};

// Receives a blob for a store. commit() verifies size and digest against the
// descriptor the writer was opened for, then makes the blob visible; an
// uncommitted or aborted writer leaves nothing visible under the digest.
// One writer per blob; not thread-safe.
class BlobWriter : public ByteSink {
 public:
  // Bytes already present from an interrupted earlier attempt; the caller
  // sends the blob from this offset on. 0 for stores that cannot resume.
  virtual std::uint64_t offset() const = 0;
  // The blob was committed by another writer while this one was being
  // opened (it waited for that writer): nothing needs sending. Bytes sent
  // anyway are verified and dropped, and commit() succeeds if they match.
  virtual bool present() const { return false; }
  virtual Result<void> commit() = 0;
  virtual void abort() = 0;
};

// Receives a blob whose digest is learned from its bytes. commit() hashes
// what it was given, makes it visible under that digest (a blob already
// there under it is the same bytes) and says what it was; an uncommitted or
// aborted writer leaves nothing visible. For a producer that makes a blob as
// it goes, so each byte is read and hashed once, not once to learn the digest
// and again to write it. One writer per blob; not thread-safe.
struct WrittenBlob {
  Digest digest;
  std::int64_t size = 0;
};
class UnnamedBlobWriter : public ByteSink {
 public:
  virtual Result<WrittenBlob> commit() = 0;
  virtual void abort() = 0;
};

// Collects bytes into a string, refusing more than `limit` of them. For
// manifests, configs, file contents read into memory, and tests.
class StringSink final : public ByteSink {
 public:
  // Into a string of its own (str()).
  explicit StringSink(std::size_t limit = SIZE_MAX) : target_(&own_), limit_(limit) {}
  // Appended to `target`, which must outlive the sink: no copy of the bytes
  // beyond the one into `target`. The limit counts what this sink appends.
  explicit StringSink(std::string& target, std::size_t limit = SIZE_MAX) : target_(&target), limit_(limit) {}
  StringSink(const StringSink&) = delete;
  StringSink& operator=(const StringSink&) = delete;
  Result<void> write(std::span<const std::byte> data) override;
  // Takes back what this sink appended.
  Result<void> restart() override {
    target_->resize(target_->size() - written_);
    written_ = 0;
    return {};
  }
  std::string& str() { return *target_; }
  // A write was refused for going over the limit (the error can say "too large").
  bool overflowed() const { return overflowed_; }

 private:
  std::string own_;
  std::string* target_;
  std::size_t limit_;
  std::size_t written_ = 0;
  bool overflowed_ = false;
};

// Writes to a file: every byte, retrying short writes and EINTR
// (fs::write_all), errors naming the file. Either over a descriptor the
// caller keeps, or over one open() made, which it closes. Not thread-safe.
class FileSink final : public ByteSink {
 public:
  enum class Mode { kTruncate, kAppend };
  // Creates `path` (or truncates it, or appends to it) with `perms`.
  static Result<FileSink> open(std::filesystem::path path, Mode mode = Mode::kTruncate, unsigned perms = 0644);
  // Writes to `fd`, which stays the caller's; `path` names it in errors.
  FileSink(int fd, std::filesystem::path path) : fd_(fd), path_(std::move(path)) {}
  FileSink(FileSink&& o) noexcept;
  FileSink& operator=(FileSink&&) = delete;
  ~FileSink() override;

  Result<void> write(std::span<const std::byte> data) override;
  // Bytes written through this sink.
  std::uint64_t written() const { return written_; }
  int fd() const { return fd_; }
  // fsync(2): what was written is on disk.
  Result<void> sync();
  // Closes a descriptor open() made, reporting a failed close(2); no-op otherwise.
  Result<void> close();

 private:
  FileSink(int fd, std::filesystem::path path, bool owned) : fd_(fd), path_(std::move(path)), owned_(owned) {}
  int fd_ = -1;
  std::filesystem::path path_;
  bool owned_ = false;
  std::uint64_t written_ = 0;
};

// Verifies bytes against a digest while forwarding them to another sink.
class VerifyingSink final : public ByteSink {
 public:
  VerifyingSink(ByteSink& next, Digest expected, std::int64_t size)
      : next_(next), verifier_(std::move(expected), size) {}
  Result<void> write(std::span<const std::byte> data) override {
    STRATA_TRY_VOID(verifier_.update(data));
    return next_.write(data);
  }
  Result<void> restart() override {
    STRATA_TRY_VOID(next_.restart());
    verifier_ = DigestVerifier(verifier_.expected(), verifier_.expected_size());
    return {};
  }
  Result<void> verify(std::string_view what) { return verifier_.verify(what); }
  std::uint64_t bytes() const { return verifier_.bytes(); }

 private:
  ByteSink& next_;
  DigestVerifier verifier_;
};

// Sends the same bytes to two sinks, in order (a file and a hasher or a
// compressor).
class TeeSink final : public ByteSink {
 public:
  TeeSink(ByteSink& a, ByteSink& b) : a_(a), b_(b) {}
  Result<void> write(std::span<const std::byte> data) override {
    STRATA_TRY_VOID(a_.write(data));
    return b_.write(data);
  }
  Result<void> restart() override {
    STRATA_TRY_VOID(a_.restart());
    return b_.restart();
  }

 private:
  ByteSink& a_;
  ByteSink& b_;
};

// Counts bytes on their way to another sink (progress reporting).
class CountingSink final : public ByteSink {
 public:
  CountingSink(ByteSink& next, std::function<void(std::uint64_t)> on_bytes)
      : next_(next), on_bytes_(std::move(on_bytes)) {}
  Result<void> write(std::span<const std::byte> data) override {
    STRATA_TRY_VOID(next_.write(data));
    if (on_bytes_) on_bytes_(data.size());
    return {};
  }
  // The bytes counted so far stay counted (they did move).
  Result<void> restart() override { return next_.restart(); }

 private:
  ByteSink& next_;
  std::function<void(std::uint64_t)> on_bytes_;
};

inline std::span<const std::byte> as_bytes(std::string_view s) {
  return std::as_bytes(std::span(s.data(), s.size()));
}

}  // namespace strata::oci
