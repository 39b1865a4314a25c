// Fuzz target: mirror job files (YAML).
#include <cstdint>
#include <string>

#include "oci/mirror.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto config = strata::oci::parse_mirror_config(text, "fuzz.yaml");
  if (!config) return 0;
  if (config->parallel < 1) __builtin_trap();
  for (const auto& e : config->images)
    if (e.source.empty() || e.destination.empty()) __builtin_trap();
  return 0;
}
