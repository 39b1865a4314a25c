// What a build attaches to each platform's overlay as OCI referrers: the
// SBOM twice (SPDX 2.3, CycloneDX 1.5) — read from the image it wrote, with
// each layer package's .deb digest and URL from the lock — and the SLSA
// provenance of the build (the request, the lock, every Release and .deb
// with its digest). Deterministic: two builds of one key on two machines
// attach the same bytes.
#pragma once

#include "layer/build/build_request.hpp"
#include "layer/build/platform_build.hpp"

namespace strata::layer {

// The build types strata's provenance names (buildDefinition.buildType).
inline constexpr std::string_view kOverlayBuildType = "https://strata.dev/buildtypes/overlay/v1";

// Attaches the three documents to `built`'s overlay manifest in the
// request's destination. A destination that keeps no referrers (a Docker
// or podman daemon's store) gets none, and the observer is told once.
Result<void> attach_build_documents(const BuildRequest& request, const PlatformBuild& built, BuildObserver& observer);

}  // namespace strata::layer
