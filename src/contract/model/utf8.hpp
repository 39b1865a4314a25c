// Reading UTF-8 one code point at a time, for the two places the contract
// code looks at characters rather than bytes: Unicode rules of the Public
// Suffix List (turned into their xn-- form) and text from a repository
// made safe for an output format (contract/egress/output_text.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace strata::contract::utf8 {

// Returned for a byte that does not start a well-formed sequence (a stray
// continuation byte, an overlong form, a surrogate, past U+10FFFF, cut short).
inline constexpr char32_t kInvalid = 0xFFFFFFFF;

// The code point at s[i], advancing i past it; on an ill-formed sequence
// kInvalid, advancing i by one byte (so every byte is looked at once).
inline char32_t next(std::string_view s, std::size_t& i) {
  auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) {
    ++i;
    return c;
  }
  std::size_t n = c >= 0xF0 ? 3 : c >= 0xE0 ? 2 : c >= 0xC0 ? 1 : 0;
  if (n == 0 || c > 0xF4 || i + n >= s.size()) {
    ++i;
    return kInvalid;
  }
  char32_t cp = c & (0x3F >> n);
  for (std::size_t k = 1; k <= n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) {
      ++i;
      return kInvalid;
    }
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  static constexpr char32_t kMin[] = {0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
    ++i;
    return kInvalid;
  }
  i += n + 1;
  return cp;
}

// Appends `cp` as UTF-8.
inline void append(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

}  // namespace strata::contract::utf8
