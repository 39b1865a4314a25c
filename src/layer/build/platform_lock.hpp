// One platform's lock resolved from the archive as apt would resolve the
// request on that platform's base: the base's dpkg state is what is
// installed; the native architecture plus the foreign ones the base's dpkg
// knows, its packages have and the requests name (`name:arch`) are indexed
// (docs/format/overlay.md); a scratch base also requests its variant's
// package set (scratch_requests), as mmdebstrap does.
#pragma once

#include <vector>

#include "layer/apt/resolve_request.hpp"
#include "layer/build/build_request.hpp"
#include "layer/overlay/base_image.hpp"

namespace strata::layer {

Result<ResolvedRequest> resolve_platform_lock(const OverlaySpec& spec, const BaseImage& base,
                                              std::vector<Package> installed, const oci::Platform& platform,
                                              const BuildContext& ctx);

}  // namespace strata::layer
