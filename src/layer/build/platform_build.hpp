// One platform of a build (docs/format/overlay.md): its base (the image's
// manifest for the platform, or the scratch skeleton), its lock (the plan's,
// or resolved: platform_lock.hpp) written to the request's lock_out, its
// .debs fetched into the cache, then build_overlay into the destination —
// annotated with its content key (cache_key.hpp), the lock's digest, its
// archive snapshot and packages, and tagged with the content key.
#pragma once

#include "layer/apt/deb_fetcher.hpp"
#include "layer/apt/lock_file.hpp"
#include "layer/build/build_request.hpp"
#include "layer/overlay/overlay.hpp"

namespace strata::layer {

struct PlatformBuild {
  oci::Platform platform;
  Lock lock;
  OverlayKey key;  // the content key: the overlay is annotated and tagged with it
  FetchReport fetch;
  OverlayResult overlay;
};

Result<PlatformBuild> build_platform(const BuildRequest& request, const oci::Platform& platform, BuildContext& ctx,
                                     BuildObserver& observer);

// Where `lock_out` is written for `platform`: as given for a one-platform
// build, else with `.<os>-<arch>[-<variant>]` appended.
std::filesystem::path lock_out_path(const std::filesystem::path& lock_out, const oci::Platform& platform,
                                    bool several);

}  // namespace strata::layer
