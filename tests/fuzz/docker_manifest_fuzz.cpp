// Fuzz target: the manifest.json of a docker-archive (`docker save`,
// skopeo): members must stay inside the archive, tags parse as references.
#include <cstdint>
#include <string>

#include "oci/docker_archive.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto images = strata::oci::parse_docker_manifest_json(text, "fuzz");
  if (!images) return 0;
  for (const auto& img : *images) {
    // Every member named is a safe relative path.
    if (!strata::oci::safe_relative(img.config)) __builtin_trap();
    for (const auto& l : img.layers)
      if (!strata::oci::safe_relative(l)) __builtin_trap();
  }
  return 0;
}
