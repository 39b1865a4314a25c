// Fuzz target: maintainer scripts as the alternatives reader sees them
// (ScriptExpander's functions, substitutions and loops on hostile text must
// end within their budgets and never crash).
#include <cstdint>
#include <string>
#include <vector>

#include "layer/effects/alternatives.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> unreadable;
  // Only the parsing is under test (no crash, no hang, bounded work): a
  // result, value or error, is equally fine.
  (void)strata::layer::parse_alternative_installs(text, unreadable);
  return 0;
}
