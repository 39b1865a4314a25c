// The OCI index of a several-platform build (docs/format/overlay.md
// "Image"): each platform's overlay manifest with its platform, annotated
// with the cache key and the newest archive snapshot of the platforms'
// locks. Nothing in it depends on how the base was spelled.
#pragma once

#include <string>
#include <vector>

#include "layer/build/cache_key.hpp"
#include "layer/build/platform_build.hpp"
#include "oci/manifest.hpp"

namespace strata::layer {

oci::RawManifest overlay_index(const std::vector<PlatformBuild>& builds, const OverlayKey& key);

}  // namespace strata::layer
