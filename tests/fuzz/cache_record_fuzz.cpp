// Fuzz target: an overlay's last-use record (an OCI artifact manifest, JSON)
// as `strata cache ls` and `cache gc` read it from a store — through
// read_use, the public reader (overlay_use.hpp); the bytes are put in a
// MemoryStore under the record's tag.
#include <cstdint>
#include <string>

#include "layer/build/overlay_use.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "oci/memory_store.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string bytes(reinterpret_cast<const char*>(data), size);
  strata::oci::MemoryStore store;
  auto raw = strata::oci::make_raw_manifest(std::string(strata::oci::media::kOciManifest), bytes);
  if (!store.put_manifest(raw, strata::layer::use_tag("overlay-fuzz"))) return 0;
  auto use = strata::layer::read_use(store, "overlay-fuzz");
  if (!use) return 0;
  // A record read is the one stored, about some overlay.
  if (use->record.digest != raw.descriptor.digest || use->subject.digest.str().empty()) __builtin_trap();
  return 0;
}
