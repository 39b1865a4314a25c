// strata build as a library call (issue 4; docs/format/overlay.md): find or
// build `base + one layer of .debs` for a plan (overlay_plan.hpp).
//
//   1. the cache: the destination's overlay tagged with the key, used unless
//      older than the request's max_age (cached_overlay.hpp); on a hit the
//      request's tag is added to it and nothing else happens;
//   2. per platform (platform_build.hpp): base, lock (the plan's or resolved),
//      lock_out, fetch, build_overlay;
//   3. one platform: its manifest is the result; several: an OCI index of
//      them (overlay_index.hpp), tagged with the key;
//   4. the request's tag on the result.
//
// Dependencies come in through the BuildContext; progress goes to its
// BuildObserver; the library never prints. The bytes written depend only on
// the plan and the request's epoch (build_overlay's contract), never on the
// context. The caller closes the destination store.
#pragma once

#include <vector>

#include "layer/build/build_observer.hpp"
#include "layer/build/build_request.hpp"
#include "layer/build/platform_build.hpp"

namespace strata::layer {

struct BuildResult {
  OverlayKey key;
  oci::Descriptor root;  // the image manifest (one platform) or the index
  bool cached = false;   // found in the destination: nothing was built
  std::vector<PlatformBuild> platforms;  // what was built, in the plan's platform order (none when cached)
};

Result<BuildResult> build(const BuildRequest& request, BuildContext& ctx);

}  // namespace strata::layer
