#include "oci/gunzip.hpp"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

namespace strata::oci {

namespace {

constexpr std::size_t kInputBuffer = 64 * 1024;

class Gunzip {
 public:
  Gunzip(PullFn source, std::string what, std::shared_ptr<std::uint64_t> consumed)
      : source_(std::move(source)), what_(std::move(what)), consumed_(std::move(consumed)), in_(kInputBuffer) {}
  ~Gunzip() {
    if (inflating_) inflateEnd(&z_);
  }
  Gunzip(const Gunzip&) = delete;
  Gunzip& operator=(const Gunzip&) = delete;

  Result<std::size_t> pull(std::span<std::byte> out) {
    if (out.empty()) return std::size_t{0};
    if (failed_) return fail(*failed_);
    auto r = step(out);
    if (!r) failed_ = r.error();
    return r;
  }

 private:
  enum class State { kDetect, kPlain, kMember, kBetween, kDone };

  // Error messages start with what the input is, when it was named.
  std::string prefix() const { return what_.empty() ? std::string() : what_ + ": "; }

  Result<std::size_t> step(std::span<std::byte> out) {
    while (true) {
      switch (state_) {
        case State::kDetect: {
          STRATA_TRY_VOID(want(2));
          if (available() >= 2 && in_[pos_] == 0x1f && in_[pos_ + 1] == 0x8b) {
            STRATA_TRY_VOID(start_member());
          } else {
            state_ = State::kPlain;
          }
          continue;
        }
        case State::kPlain: {
          if (available() > 0) {
            std::size_t n = std::min(out.size(), available());
            std::memcpy(out.data(), in_.data() + pos_, n);
            pos_ += n;
            return n;
          }
          if (eof_) return std::size_t{0};
          STRATA_TRY(std::size_t n, source_(out));
          if (consumed_) *consumed_ += n;
          if (n == 0) eof_ = true;
          return n;
        }
        case State::kMember: {
          STRATA_TRY(std::size_t n, inflate_some(out));
          if (n > 0) return n;
          continue;  // the member ended without output in this call
        }
        case State::kBetween: {
          STRATA_TRY_VOID(want(2));
          if (available() == 0) {
            state_ = State::kDone;
            continue;
          }
          if (available() >= 2 && in_[pos_] == 0x1f && in_[pos_ + 1] == 0x8b) {
            STRATA_TRY_VOID(start_member());
            continue;
          }
          // Zeros after the last member (tape padding) are what gzip
          // ignores silently; anything else is not part of the stream.
          while (available() > 0 && in_[pos_] == 0) ++pos_;
          if (available() > 0) {
            return fail(ErrorCode::kInvalidArgument,
                        prefix() + "unexpected bytes after gzip member " + std::to_string(members_) +
                            " (not a gzip member; the file is damaged or was appended to)");
          }
          continue;
        }
        case State::kDone:
          return std::size_t{0};
      }
    }
  }

  std::size_t available() const { return end_ - pos_; }

  // Reads until at least `n` bytes are buffered or the source ends.
  Result<void> want(std::size_t n) {
    while (available() < n && !eof_) {
      if (pos_ > 0) {
        std::memmove(in_.data(), in_.data() + pos_, available());
        end_ -= pos_;
        pos_ = 0;
      }
      STRATA_TRY(std::size_t got, source_(std::as_writable_bytes(std::span(in_.data() + end_, in_.size() - end_))));
      if (consumed_) *consumed_ += got;
      if (got == 0) eof_ = true;
      end_ += got;
    }
    return {};
  }

  Result<void> start_member() {
    ++members_;
    int rc = inflating_ ? inflateReset(&z_) : inflateInit2(&z_, 16 + MAX_WBITS);  // gzip wrapper only
    if (rc != Z_OK) return fail(ErrorCode::kIoError, prefix() + "zlib: cannot start inflating");
    inflating_ = true;
    state_ = State::kMember;
    return {};
  }

  Result<std::size_t> inflate_some(std::span<std::byte> out) {
    while (true) {
      if (available() == 0 && !eof_) STRATA_TRY_VOID(want(1));
      z_.next_in = in_.data() + pos_;
      z_.avail_in = static_cast<uInt>(available());
      z_.next_out = reinterpret_cast<Bytef*>(out.data());
      z_.avail_out = static_cast<uInt>(std::min<std::size_t>(out.size(), UINT32_MAX));
      int rc = inflate(&z_, Z_NO_FLUSH);
      std::size_t produced = std::min<std::size_t>(out.size(), UINT32_MAX) - z_.avail_out;
      pos_ = end_ - z_.avail_in;
      if (rc == Z_STREAM_END) {
        // zlib has compared the trailer's CRC-32 and ISIZE with the content.
        state_ = State::kBetween;
        return produced;
      }
      if (rc == Z_OK || (rc == Z_BUF_ERROR && available() == 0 && !eof_)) {
        if (produced > 0) return produced;
        continue;
      }
      if (rc == Z_BUF_ERROR) {
        return fail(ErrorCode::kInvalidArgument, prefix() + "gzip member " + std::to_string(members_) +
                                                     " is truncated (the input ends before its trailer)");
      }
      if (rc == Z_MEM_ERROR) return fail(ErrorCode::kIoError, prefix() + "zlib: out of memory");
      std::string msg = z_.msg ? z_.msg : "corrupt data";
      std::string why;
      if (msg == "incorrect data check") {
        why = "the CRC-32 in its trailer does not match its content (damaged or altered; gzip -t fails too)";
      } else if (msg == "incorrect length check") {
        why = "the length in its trailer (ISIZE) does not match its content (damaged or altered)";
      } else {
        why = "corrupt gzip data (" + msg + ")";
      }
      return fail(ErrorCode::kInvalidArgument, prefix() + "gzip member " + std::to_string(members_) + ": " + why);
    }
  }

  PullFn source_;
  std::string what_;
  std::shared_ptr<std::uint64_t> consumed_;
  std::vector<unsigned char> in_;
  std::size_t pos_ = 0, end_ = 0;
  bool eof_ = false;
  State state_ = State::kDetect;
  z_stream z_{};
  bool inflating_ = false;
  std::uint64_t members_ = 0;
  std::optional<Error> failed_;  // a failed stream stays failed
};

}  // namespace

bool has_gzip_magic(std::span<const std::byte> head) {
  return head.size() >= 2 && head[0] == std::byte{0x1f} && head[1] == std::byte{0x8b};
}

PullFn gunzip_if_gzip(PullFn source, std::string what, std::shared_ptr<std::uint64_t> consumed) {
  auto g = std::make_shared<Gunzip>(std::move(source), std::move(what), std::move(consumed));
  return [g](std::span<std::byte> buf) { return g->pull(buf); };
}

Result<std::string> gunzip(std::string_view data, std::string_view what, std::uint64_t max_size) {
  std::size_t off = 0;
  PullFn from_memory = [&](std::span<std::byte> buf) -> Result<std::size_t> {
    std::size_t n = std::min(buf.size(), data.size() - off);
    std::memcpy(buf.data(), data.data() + off, n);
    off += n;
    return n;
  };
  Gunzip g(from_memory, std::string(what), nullptr);
  std::string out;
  std::vector<std::byte> buf(64 * 1024);
  while (true) {
    STRATA_TRY(std::size_t n, g.pull(buf));
    if (n == 0) return out;
    if (out.size() + n > max_size) {
      return fail(ErrorCode::kFailedPrecondition,
                  std::string(what) + ": decompresses to more than " + std::to_string(max_size) + " bytes; refused");
    }
    out.append(reinterpret_cast<const char*>(buf.data()), n);
  }
}

}  // namespace strata::oci
