// Fuzz target: pre-warm configs (YAML) — parse, and what parses is whole:
// every overlay has a base and at least one package, every name non-empty.
#include <cstdint>
#include <string>

#include "layer/cache/prewarm_config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = strata::layer::parse_prewarm_config(text, "fuzz.yaml", "/etc/strata");
  if (!config) return 0;
  if (config->cache.empty()) __builtin_trap();
  for (const auto& o : config->overlays) {
    if (o.base.empty() || o.packages.empty() || o.where.empty()) __builtin_trap();
    for (const auto& p : o.packages)
      if (p.empty()) __builtin_trap();
  }
  return 0;
}
