#include "contract/egress/output_text.hpp"

#include "contract/model/utf8.hpp"

namespace strata::contract::egress {

bool unsafe_in_policy_text(char32_t cp) {
  if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F)) return true;  // C0, DEL, C1 (U+0085 NEL)
  if (cp == 0x2028 || cp == 0x2029) return true;              // line and paragraph separators
  if (cp == 0x061C || cp == 0x200E || cp == 0x200F) return true;
  if ((cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069)) return true;
  return cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF || cp == utf8::kInvalid;
}

std::string one_line(std::string_view s, std::size_t max) {
  std::string out;
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = utf8::next(s, i);
    std::string ch;
    if (cp == utf8::kInvalid) {
      utf8::append(ch, 0xFFFD);
    } else if (unsafe_in_policy_text(cp)) {
      ch = " ";
    } else {
      utf8::append(ch, cp);
    }
    if (out.size() + ch.size() > max) {
      out += "...";
      break;
    }
    out += ch;
  }
  return out;
}

}  // namespace strata::contract::egress
