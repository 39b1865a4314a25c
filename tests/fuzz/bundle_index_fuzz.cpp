// Fuzz target: the bundle index (JSON, the manifest of a bundle's
// checksums) — parse, and what parses writes an index that parses back to
// the same bytes.
#include <cstdint>
#include <string>

#include "layer/bundle/bundle_format.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto contents = strata::layer::parse_bundle_index(bytes, "fuzz");
  if (!contents) return 0;
  const std::string once = strata::layer::bundle_index(*contents).bytes;
  auto again = strata::layer::parse_bundle_index(once, "fuzz-again");
  if (!again || strata::layer::bundle_index(*again).bytes != once) __builtin_trap();
  return 0;
}
