// Fuzz target: manifest, index and config JSON.
#include <cstdint>
#include <string>

#include "oci/manifest.hpp"
#include "oci/media_types.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  for (auto type : {std::string_view(), strata::oci::media::kOciManifest, strata::oci::media::kOciIndex,
                    strata::oci::media::kDockerManifest}) {
    auto parsed = strata::oci::parse_manifest(bytes, type, "fuzz");
    if (!parsed) continue;
    // What parses serialises to something that parses again to the same shape.
    std::string out = std::visit([](const auto& m) { return strata::oci::serialize(m); }, *parsed);
    auto again = strata::oci::parse_manifest(out, "", "fuzz-again");
    if (!again || again->index() != parsed->index()) __builtin_trap();
  }
  // Only the parsing is under test (no crash, no hang, bounded work): a
  // result, value or error, is equally fine.
  (void)strata::oci::sniff_manifest_media_type(bytes, "fuzz");
  if (auto cfg = strata::oci::parse_config(std::string(bytes), "fuzz")) {
    (void)cfg->platform();
    (void)cfg->diff_ids();
    (void)cfg->env();
    (void)cfg->labels();
  }
  return 0;
}
