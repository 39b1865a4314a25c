// Fuzz target: terminal_safe over any bytes. What comes out is valid UTF-8
// with no C0/C1 control, DEL, line or paragraph separator or bidi control
// in it, and text that needed nothing is returned unchanged.
#include <cstdint>
#include <string>

#include "util/terminal_text.hpp"

namespace {

// Decodes valid UTF-8 strictly; false on anything else.
bool next(std::string_view s, std::size_t& i, char32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
  if (n == 0 || i + n > s.size()) return false;
  cp = n == 1 ? c : n == 2 ? (c & 0x1f) : n == 3 ? (c & 0x0f) : (c & 0x07);
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xc0) != 0x80) return false;
    cp = (cp << 6) | (b(i + k) & 0x3f);
  }
  static constexpr char32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
  i += n;
  return true;
}

bool control(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || (cp >= 0x202a && cp <= 0x202e) ||
         (cp >= 0x2066 && cp <= 0x2069) || cp == 0x200e || cp == 0x200f || cp == 0x061c;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  const std::string out = strata::terminal_safe(in);
  bool clean = true;
  for (std::size_t i = 0; i < in.size() && clean;) {
    char32_t cp = 0;
    clean = next(in, i, cp) && !control(cp);
  }
  if (clean && out != in) __builtin_trap();
  for (std::size_t i = 0; i < out.size();) {
    char32_t cp = 0;
    if (!next(out, i, cp) || control(cp)) __builtin_trap();
  }
  if (strata::terminal_safe(out) != out) __builtin_trap();  // nothing left to escape
  return 0;
}
