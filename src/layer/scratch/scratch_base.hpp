// The empty base a scratch build starts from: no layers, and a filesystem
// holding only the merged-/usr skeleton bookworm expects (`bin → usr/bin`,
// `sbin → usr/sbin`, `lib → usr/lib`, `lib64 → usr/lib64` and the four
// directories they point to). Handing this base to the overlay builder makes
// its rewrite rules canonicalise every package path through the links, as
// dpkg does on a merged-/usr system, so the scratch image comes out of the
// same pipeline as any overlay. The skeleton is not in any package, so it is
// written into the layer as effects (skeleton_effects).
//
// The config is what Debian's images carry: PATH, Cmd ["/bin/bash"], the
// platform; `created` is set by the overlay builder.
#pragma once

#include <cstdint>
#include <vector>

#include "layer/overlay/base_image.hpp"
#include "layer/effects/effects.hpp"
#include "oci/platform.hpp"

namespace strata::layer {

// The base reference that names a scratch build (`strata build --base scratch`).
inline constexpr std::string_view kScratchBase = "scratch";

inline constexpr std::string_view kScratchPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

Result<BaseImage> scratch_base(const oci::Platform& platform);

// The skeleton's entries (directories 0755 root, the links), mtime = epoch.
std::vector<EffectFile> skeleton_effects(std::int64_t epoch);

}  // namespace strata::layer
