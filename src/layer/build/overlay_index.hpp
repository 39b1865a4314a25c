// The OCI index of a several-platform build (docs/format/overlay.md
// "Image"): each platform's overlay manifest with its platform, annotated
// with the cache key, the newest archive snapshot of the platforms' locks
// and the base's name.
#pragma once

#include <string>
#include <vector>

#include "layer/build/cache_key.hpp"
#include "layer/build/platform_build.hpp"
#include "oci/manifest.hpp"

namespace strata::layer {

oci::RawManifest overlay_index(const std::vector<PlatformBuild>& builds, const OverlayKey& key,
                               const std::string& base_name);

}  // namespace strata::layer
