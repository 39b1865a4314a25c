#include "layer/effects/ld_so_cache.hpp"

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <tuple>

namespace strata::layer {

namespace {

constexpr std::string_view kMagic = "glibc-ld.so.cache1.1";
constexpr std::uint32_t kExtensionMagic = 0xeaa42174;
constexpr std::size_t kHeaderSize = 48;
constexpr std::size_t kEntrySize = 24;
constexpr std::uint8_t kFlagsLittleEndian = 2;

bool is_digit(char c) { return c >= '0' && c <= '9'; }

void put32(std::string& out, std::size_t at, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
void put64(std::string& out, std::size_t at, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
}
std::uint64_t get(std::string_view b, std::size_t at, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[at + i])) << (8 * i);
  return v;
}

}  // namespace

int dl_cache_libcmp(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  auto at = [](std::string_view s, std::size_t k) { return k < s.size() ? s[k] : '\0'; };
  while (at(a, i) != '\0') {
    char p1 = at(a, i), p2 = at(b, j);
    if (is_digit(p1)) {
      if (!is_digit(p2)) return 1;
      long v1 = 0, v2 = 0;
      while (is_digit(at(a, i))) v1 = v1 * 10 + (at(a, i++) - '0');
      while (is_digit(at(b, j))) v2 = v2 * 10 + (at(b, j++) - '0');
      if (v1 != v2) return v1 < v2 ? -1 : 1;
    } else if (is_digit(p2)) {
      return -1;
    } else if (p1 != p2) {
      return static_cast<unsigned char>(p1) - static_cast<unsigned char>(p2);
    } else {
      ++i;
      ++j;
    }
  }
  return -static_cast<int>(static_cast<unsigned char>(at(b, j)));
}

std::string write_ld_so_cache(std::vector<LdCacheEntry> entries, std::string_view generator) {
  // Exact repeats dropped; the same soname from two directories stays, in
  // the order given (directory precedence), as ldconfig writes it.
  std::set<std::tuple<std::string, std::string, std::int32_t, std::uint64_t>> seen;
  std::vector<LdCacheEntry> unique;
  for (auto& e : entries) {
    if (seen.insert({e.soname, e.path, e.flags, e.hwcap}).second) unique.push_back(std::move(e));
  }
  // ldconfig's compare(): descending libcmp, then flags descending, then hwcap descending.
  std::stable_sort(unique.begin(), unique.end(), [](const LdCacheEntry& x, const LdCacheEntry& y) {
    int c = dl_cache_libcmp(x.soname, y.soname);
    if (c != 0) return c > 0;
    if (x.flags != y.flags) return x.flags > y.flags;
    return x.hwcap > y.hwcap;
  });
  std::size_t strings_at = kHeaderSize + kEntrySize * unique.size();
  std::string out(strings_at, '\0');
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  put32(out, 20, static_cast<std::uint32_t>(unique.size()));
  out[28] = static_cast<char>(kFlagsLittleEndian);
  for (std::size_t i = 0; i < unique.size(); ++i) {
    const auto& e = unique[i];
    std::size_t value_at = out.size();
    out += e.path;
    out.push_back('\0');
    std::size_t key_at = value_at + e.path.size() - e.soname.size();
    if (!e.path.ends_with("/" + e.soname)) {  // not a suffix: store the key on its own
      key_at = out.size();
      out += e.soname;
      out.push_back('\0');
    }
    std::size_t at = kHeaderSize + i * kEntrySize;
    put32(out, at, static_cast<std::uint32_t>(e.flags));
    put32(out, at + 4, static_cast<std::uint32_t>(key_at));
    put32(out, at + 8, static_cast<std::uint32_t>(value_at));
    put32(out, at + 12, 0);
    put64(out, at + 16, e.hwcap);
  }
  put32(out, 24, static_cast<std::uint32_t>(out.size() - strings_at));
  while (out.size() % 4 != 0) out.push_back('\0');
  std::size_t ext_at = out.size();
  put32(out, 32, static_cast<std::uint32_t>(ext_at));
  out.resize(ext_at + 8 + 16, '\0');
  put32(out, ext_at, kExtensionMagic);
  put32(out, ext_at + 4, 1);
  put32(out, ext_at + 8, 0);  // cache_extension_tag_generator
  put32(out, ext_at + 12, 0);
  put32(out, ext_at + 16, static_cast<std::uint32_t>(ext_at + 24));
  put32(out, ext_at + 20, static_cast<std::uint32_t>(generator.size()));
  out += generator;
  return out;
}

Result<std::vector<LdCacheEntry>> parse_ld_so_cache(std::string_view b, std::string_view what) {
  auto bad = [&](std::string why) {
    return fail(ErrorCode::kInvalidArgument, std::string(what) + ": " + why);
  };
  if (b.size() < kHeaderSize || b.substr(0, kMagic.size()) != kMagic) {
    return bad("not a glibc ld.so.cache in the 1.1 format");
  }
  if (b[28] != static_cast<char>(kFlagsLittleEndian)) return bad("not a little-endian cache");
  std::uint64_t n = get(b, 20, 4);
  if (n > (b.size() - kHeaderSize) / kEntrySize) return bad("entry count beyond the file");
  auto cstr = [&](std::uint64_t off) -> std::optional<std::string> {
    if (off >= b.size()) return std::nullopt;
    std::size_t end = b.find('\0', off);
    if (end == std::string_view::npos) return std::nullopt;
    return std::string(b.substr(off, end - off));
  };
  std::vector<LdCacheEntry> out;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::size_t at = kHeaderSize + i * kEntrySize;
    auto key = cstr(get(b, at + 4, 4));
    auto value = cstr(get(b, at + 8, 4));
    if (!key || !value) return bad("entry " + std::to_string(i) + " points outside the file");
    out.push_back({*key, *value, static_cast<std::int32_t>(get(b, at, 4)), get(b, at + 16, 8)});
  }
  return out;
}

}  // namespace strata::layer
