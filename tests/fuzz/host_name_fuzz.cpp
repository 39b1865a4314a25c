// Fuzz target: the host-name rule of egress grants (with the compiled-in
// Public Suffix List behind it) and the text every policy format writes
// repository text through. Invariants: an accepted host is lower-case LDH
// (a "*." first label at most) whose public suffix is a proper suffix of it;
// one_line never holds a line break any reader knows; a YAML scalar reads
// back as the text it quotes.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <string>

#include "contract/egress/output_text.hpp"
#include "contract/egress/yaml_text.hpp"
#include "contract/model/host_name.hpp"
#include "contract/model/public_suffix.hpp"
#include "contract/model/utf8.hpp"

namespace {

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();)
    if (strata::contract::utf8::next(s, i) == strata::contract::utf8::kInvalid) return false;
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::contract;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (bool wildcard : {false, true}) {
    if (host_name_problem(text, wildcard)) continue;
    std::string_view name = text.starts_with("*.") ? text.substr(2) : text;
    if (!wildcard && name.size() != text.size()) __builtin_trap();
    for (char c : name)
      if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.')) __builtin_trap();
    std::string_view suffix = public_suffix(name);
    if (suffix.size() >= name.size() || !name.ends_with(suffix)) __builtin_trap();  // never a public suffix itself
  }
  std::string line = egress::one_line(text, 160);
  if (line.size() > 163 || !valid_utf8(line)) __builtin_trap();
  for (std::size_t i = 0; i < line.size();)
    if (egress::unsafe_in_policy_text(utf8::next(line, i))) __builtin_trap();
  if (valid_utf8(text)) {
    std::string quoted = egress::yaml_quote(text);
    for (std::size_t i = 0; i < quoted.size();)
      if (egress::unsafe_in_policy_text(utf8::next(quoted, i))) __builtin_trap();
    if (YAML::Load(quoted).Scalar() != text) __builtin_trap();
  }
  return 0;
}
