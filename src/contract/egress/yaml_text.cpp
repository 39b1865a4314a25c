#include "contract/egress/yaml_text.hpp"

#include <algorithm>
#include <cstdio>

#include "contract/egress/output_text.hpp"
#include "contract/model/utf8.hpp"
#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {

std::string yaml_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    char32_t cp = utf8::next(s, i);
    if (cp == '"' || cp == '\\') {
      out += '\\';
      out += static_cast<char>(cp);
    } else if (cp == utf8::kInvalid) {
      out += "\\uFFFD";
    } else if (unsafe_in_policy_text(cp)) {
      char buf[12];
      std::snprintf(buf, sizeof buf, cp < 0x100 ? "\\x%02x" : "\\u%04x", static_cast<unsigned>(cp));
      out += buf;
    } else {
      utf8::append(out, cp);
    }
  }
  return out + "\"";
}

std::string yaml_comment(std::string_view s, std::size_t max) { return one_line(s, max); }

Result<YAML::Node> load_yaml(std::string_view text, const std::string& file) { return oci::load_yaml(text, file); }

std::string scalar(const YAML::Node& n) { return n && n.IsScalar() ? n.Scalar() : std::string(); }

std::string unknown_keys(const YAML::Node& map, std::initializer_list<std::string_view> known) {
  std::string out;
  for (const auto& kv : map) {
    const std::string& k = kv.first.Scalar();
    if (std::find(known.begin(), known.end(), k) != known.end()) continue;
    out += (out.empty() ? "" : ", ") + str::quote(k);
  }
  return out;
}

}  // namespace strata::contract::egress
