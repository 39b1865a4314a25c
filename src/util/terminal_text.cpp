#include "util/terminal_text.hpp"

#include <cstdint>
#include <cstdio>

namespace strata {

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

bool escaped(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f ||
         cp == 0x061c;
}

void escape(char32_t cp, std::string& out) {
  char buf[16];  // "\\u" and up to 8 hex digits: room for any char32_t, not only those escaped() picks
  if (cp < 0x80) std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
  else std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
  out += buf;
}

// The length of the well-formed UTF-8 sequence at `s[i]` and its code point,
// or 0 and the length of the maximal ill-formed subpart (at least 1), after
// the Unicode Standard's Table 3-7.
std::size_t decode(std::string_view s, std::size_t i, char32_t& cp, std::size_t& bad) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  bad = 1;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) n = 2, cp = c & 0x1f;
  else if (c == 0xe0) n = 3, lo = 0xa0, cp = c & 0x0f;
  else if (c == 0xed) n = 3, hi = 0x9f, cp = c & 0x0f;
  else if (c >= 0xe1 && c <= 0xef) n = 3, cp = c & 0x0f;
  else if (c == 0xf0) n = 4, lo = 0x90, cp = c & 0x07;
  else if (c == 0xf4) n = 4, hi = 0x8f, cp = c & 0x07;
  else if (c >= 0xf1 && c <= 0xf3) n = 4, cp = c & 0x07;
  else return 0;  // a continuation byte, C0/C1 (overlong), F5..FF
  for (std::size_t k = 1; k < n; ++k) {
    if (i + k >= s.size()) return 0;
    const unsigned char t = b(i + k);
    if (t < (k == 1 ? lo : 0x80) || t > (k == 1 ? hi : 0xbf)) return 0;
    cp = (cp << 6) | (t & 0x3f);
    bad = k + 1;
  }
  return n;
}

}  // namespace

std::string terminal_safe(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = 0;
    std::size_t bad = 1;
    const std::size_t n = decode(s, i, cp, bad);
    if (n == 0) {
      out += kReplacement;
      i += bad;
      continue;
    }
    if (escaped(cp)) escape(cp, out);
    else out.append(s.substr(i, n));
    i += n;
  }
  return out;
}

std::string terminal_safe_lines(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t start = 0;;) {
    const std::size_t nl = s.find('\n', start);
    out += terminal_safe(s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

}  // namespace strata
