// Little-endian binary encoding for strata's own cache files (parsed
// package indexes, base filesystems, fragment info): fixed-width integers and
// length-prefixed strings. The reader is bounds-checked and never throws: an
// overrun, or a count the remaining bytes cannot hold, sets `bad` and yields
// empty values, so a damaged file is detected rather than trusted or
// allowed to make it allocate.
//
// A record's layout is stated once, as a function template over the
// direction, called with a Writer (and a const record) to encode and with a
// Reader (and a record to fill) to decode:
//
//   template <class Io, class R> void fields(Io& io, R& r) {
//     io.str(r.name, r.version);                      // str(r.name), str(r.version)
//     io.u64(r.size);
//     io.enum8(r.type, Type::kLast);                  // refuses larger values
//     io.list(r.items, 4, [&](auto& s) { io.str(s); });  // u32 count, then each
//   }
//
// Writer and Reader have the same member for each shape, so the two
// directions cannot drift apart.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

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
  // Several fields of one kind in a row: str(a, b) is str(a), then str(b).
  template <class... S>
    requires(sizeof...(S) > 1)
  void str(const S&... s) {
    (str(std::string_view(s)), ...);
  }
  template <class... T>
    requires(sizeof...(T) > 1)
  void u32(const T&... v) {
    (u32(static_cast<std::uint32_t>(v)), ...);
  }
  template <class... T>
    requires(sizeof...(T) > 1)
  void u64(const T&... v) {
    (u64(static_cast<std::uint64_t>(v)), ...);
  }
  // An enumeration as one byte (`max`, its largest value, is the reader's check).
  template <class E>
  void enum8(E e, E /*max*/) {
    u8(static_cast<std::uint8_t>(e));
  }
  // Up to eight flags in one byte, the first the lowest bit.
  template <class... B>
  void bits(const B&... b) {
    static_assert(sizeof...(B) <= 8);
    std::uint8_t v = 0, bit = 1;
    ((v = static_cast<std::uint8_t>(v | (b ? bit : 0)), bit = static_cast<std::uint8_t>(bit << 1)), ...);
    u8(v);
  }
  // Optional strings: one byte saying which are present (bits), then those.
  template <class... O>
  void optionals(const O&... o) {
    bits(o.has_value()...);
    ((o ? str(*o) : void()), ...);
  }
  // A sequence: its u32 count, then `each(element)` for every element.
  // `min_bytes` (the least an element takes) is the reader's check.
  template <class C, class F>
  void list(const C& c, std::size_t /*min_bytes*/, F&& each) {
    u32(static_cast<std::uint32_t>(c.size()));
    for (const auto& e : c) each(e);
  }
  // A map: its u32 count, then `each(key, value)` for every entry, in order.
  template <class M, class F>
  void map(const M& m, std::size_t /*min_bytes*/, F&& each) {
    u32(static_cast<std::uint32_t>(m.size()));
    for (const auto& [k, v] : m) each(k, v);
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

  // The Writer's shapes, read back into their arguments, in order (see the
  // top of this file).
  template <class... S>
    requires(sizeof...(S) > 1)
  void str(S&... s) {
    (str(s), ...);
  }
  template <class T>
  void u8(T& v) {
    v = static_cast<T>(u8());
  }
  template <class... T>
    requires(sizeof...(T) > 0)
  void u32(T&... v) {
    ((v = static_cast<T>(u32())), ...);
  }
  template <class... T>
    requires(sizeof...(T) > 0)
  void u64(T&... v) {
    ((v = static_cast<T>(u64())), ...);
  }
  template <class E>
  void enum8(E& e, E max) {
    std::uint8_t v = u8();
    if (v > static_cast<std::uint8_t>(max)) bad = true;
    e = static_cast<E>(v);
  }
  template <class... B>
  void bits(B&... b) {
    std::uint8_t v = u8(), bit = 1;
    ((b = (v & bit) != 0, bit = static_cast<std::uint8_t>(bit << 1)), ...);
  }
  template <class... O>
  void optionals(O&... o) {
    std::uint8_t v = u8(), bit = 1;
    ((v & bit ? str(o.emplace()) : void(), bit = static_cast<std::uint8_t>(bit << 1)), ...);
  }
  template <class C, class F>
  void list(C& c, std::size_t min_bytes, F&& each) {
    c.resize(count(min_bytes));
    for (auto& e : c) each(e);
  }
  template <class M, class F>
  void map(M& m, std::size_t min_bytes, F&& each) {
    for (std::uint32_t i = 0, n = count(min_bytes); i < n && !bad; ++i) {
      typename M::key_type k{};
      typename M::mapped_type v{};
      each(k, v);
      m.emplace_hint(m.end(), std::move(k), std::move(v));
    }
  }

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

// A vector<string> (u32 count, each at least 4 bytes) or a map<string,
// string> (u32 count, key then value, each pair at least 8 bytes).
template <class Io, class C>
void strings(Io& io, C& c) {
  if constexpr (requires { typename std::remove_const_t<C>::mapped_type; }) {
    io.map(c, 8, [&](auto& k, auto& v) {
      io.str(k);
      io.str(v);
    });
  } else {
    io.list(c, 4, [&](auto& s) { io.str(s); });
  }
}

// A cache file: `magic`, the u32 `format`, then what `body(Writer&)` writes.
template <class F>
std::string encode_file(std::string_view magic, std::uint32_t format, F&& body) {
  std::string out(magic);
  Writer w(out);
  w.u32(format);
  body(w);
  return out;
}

// Reads a file encode_file wrote: true when `bytes` has this magic and
// format, and `body(Reader&)` read them to the end without a fault.
template <class F>
bool decode_file(std::string_view bytes, std::string_view magic, std::uint32_t format, F&& body) {
  if (!bytes.starts_with(magic)) return false;
  Reader r(bytes.substr(magic.size()));
  if (r.u32() != format) return false;
  body(r);
  return !r.bad && r.at_end();
}

}  // namespace strata::bin
