// The overlay cache key (docs/format/overlay.md "Cache key"): sha256 of the
// canonical JSON of what determines an overlay's bytes — the recipe
// (kOverlayRecipe), the compression, the sorted requests, the platforms, each
// platform's base manifest digest (for scratch: the variant and
// kScratchRecipe), and the sources with the keys they trust (from the lock
// when building one, so a --lock build has the key of the build that
// resolved it). The overlay is tagged tag() in its destination.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layer/apt/lock_file.hpp"
#include "layer/build/overlay_spec.hpp"

namespace strata::layer {

struct OverlayKey {
  std::string hex;
  std::string canonical_json;  // what `hex` hashes

  std::string tag() const { return "overlay-" + hex; }
};

// The key of `spec` built from `lock` (when given) for `platforms`. Reads
// the base's manifest (for its platform digests) and, without a lock, the
// apt sources.
Result<OverlayKey> overlay_key(const OverlaySpec& spec, const std::optional<Lock>& lock,
                               const std::vector<oci::Platform>& platforms);

}  // namespace strata::layer
