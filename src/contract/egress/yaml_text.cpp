#include "contract/egress/yaml_text.hpp"

#include <algorithm>

#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {

// str::quote's escapes (\", \\, \xNN) are YAML double-quoted escapes too.
std::string yaml_quote(std::string_view s) { return str::quote(s, std::string_view::npos); }

Result<YAML::Node> load_yaml(std::string_view text, const std::string& file) { return oci::load_yaml(text, file); }

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
