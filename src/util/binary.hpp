// Little-endian binary encoding for strata's own cache files (parsed
// package indexes, base filesystems): fixed-width integers and
// length-prefixed strings. The reader is bounds-checked and never throws: an
// overrun, or a count the remaining bytes cannot hold, sets `bad` and yields
// empty values, so a damaged file is detected rather than trusted or
// allowed to make it allocate.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace strata::bin {

class Writer {
 public:
  explicit Writer(std::string& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { le(v, 4); }
  void u64(std::uint64_t v) { le(v, 8); }
  void str(std::string_view s) {
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }

 private:
  void le(std::uint64_t v, int bytes) {
    for (int i = 0; i < bytes; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  std::string& out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  bool bad = false;

  std::uint8_t u8() { return static_cast<std::uint8_t>(le(1)); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(le(4)); }
  std::uint64_t u64() { return le(8); }
  void str(std::string& s) {
    std::uint32_t n = u32();
    if (!need(n)) return;
    s.assign(in_.data() + pos_, n);
    pos_ += n;
  }
  // A count of items each at least `min_bytes` long: refuses counts the
  // remaining bytes cannot hold.
  std::uint32_t count(std::size_t min_bytes) {
    std::uint32_t n = u32();
    if (!bad && static_cast<std::uint64_t>(n) * min_bytes > in_.size() - pos_) bad = true;
    return bad ? 0 : n;
  }
  bool at_end() const { return pos_ == in_.size(); }

 private:
  std::uint64_t le(int bytes) {
    if (!need(static_cast<std::size_t>(bytes))) return 0;
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) {
      v |= static_cast<std::uint64_t>(static_cast<unsigned char>(in_[pos_ + static_cast<std::size_t>(i)])) << (8 * i);
    }
    pos_ += static_cast<std::size_t>(bytes);
    return v;
  }
  bool need(std::size_t n) {
    if (bad || in_.size() - pos_ < n) {
      bad = true;
      return false;
    }
    return true;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace strata::bin
