// Fuzz target: maintainer scripts as the effect readers see them
// (alternatives, accounts, diversions with function calls inlined;
// ScriptExpander's functions, substitutions and loops on hostile text must
// end within their budgets and never crash), and the same bytes as a
// certificate and a diversions database.
#include <cstdint>
#include <string>
#include <vector>

#include "layer/effects/accounts.hpp"
#include "layer/effects/alternatives.hpp"
#include "layer/effects/ca_certificates.hpp"
#include "layer/effects/diversions.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> unreadable;
  // Only the parsing is under test (no crash, no hang, bounded work): a
  // result, value or error, is equally fine.
  (void)strata::layer::parse_alternative_installs(text, unreadable);
  (void)strata::layer::parse_account_calls(text);
  (void)strata::layer::parse_divert_calls(text, "fuzz", unreadable);
  (void)strata::layer::parse_diversions(text);
  std::string why;
  (void)strata::layer::rehash_key(text, why);
  return 0;
}
