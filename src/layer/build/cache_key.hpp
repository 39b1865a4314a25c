// The overlay cache keys (docs/format/overlay.md "Cache keys"), each the
// sha256 of a canonical JSON document:
// - the content key of one platform's overlay names exactly what its bytes
//   are made of: the recipe (kOverlayRecipe), the compression, the base
//   manifest digest (for scratch: the variant and kScratchRecipe), the lock's
//   resolution (every package by name, version, architecture and sha256, the
//   sources with their keys and Release dates, the request) and the epoch.
//   A --lock build is looked up by it; every overlay is annotated and tagged
//   with it, so a resolving build and a build of its lock give one image.
//   Several locks (one per platform) are looked up by the key of their
//   platforms' content keys.
// - the request key names a resolving build: the recipe, the compression,
//   the sorted requests, the platforms, each platform's base digest, the
//   sources with the keys they trust, and SOURCE_DATE_EPOCH when set. It
//   finds the newest overlay built for that request, whose archive snapshot
//   --max-age bounds.
// The overlay is tagged tag() in its destination.
#pragma once

#include <map>

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

// The key a build of `spec` is looked up by: the content key of the one
// lock for its platform, the key of several locks' content keys (`locks[i]`
// is for `platforms[i]`), else (no locks) the request key for `platforms`.
// Reads the base's manifest (for its platform digests) and, without locks,
// the apt sources.
Result<OverlayKey> overlay_key(const OverlaySpec& spec, const std::vector<Lock>& locks,
                               const std::vector<oci::Platform>& platforms);

// The request key the locks were resolved for, from what they record (the
// request, the sources with their keys): what a resolving build of the same
// request on the same sources is looked up by. The locks must agree on both,
// and record their sources' keys.
Result<OverlayKey> locks_request_key(const OverlaySpec& spec, const std::vector<Lock>& locks,
                                     const std::vector<oci::Platform>& platforms);

// The content key of `lock` built on the base whose manifest digest (for
// scratch: scratch_base_identity) is `base`, for platform `p`.
OverlayKey content_key(const OverlaySpec& spec, const Lock& lock, const oci::Platform& p, const std::string& base);

// The manifest digest --base gives for each of `platforms`, by platform
// string (for scratch: scratch_base_identity). Reads the base's manifest.
Result<std::map<std::string, std::string>> base_manifest_digests(const OverlaySpec& spec,
                                                                 const std::vector<oci::Platform>& platforms);

// What names a scratch base in keys: the variant and kScratchRecipe.
std::string scratch_base_identity(const OverlaySpec& spec);

}  // namespace strata::layer
