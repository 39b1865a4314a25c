// The scratch base as an image other commands start from: what `strata
// build --base scratch` (no packages) makes — Debian's minbase (or
// essential) set from the apt sources — found by its key in `store` or
// built there, like any overlay. `plan`, `preflight` and `provision --base
// scratch` read its facts and put their overlay on it, so a scratch base is
// a real image with a manifest digest (the facts cache and the overlay key
// are keyed by it), kept and collected as any cached overlay is.
#pragma once

#include <string>
#include <vector>

#include "layer/build/build.hpp"

namespace strata::layer {

struct ScratchImageRequest {
  oci::Store* store = nullptr;        // REQUIRED: where it is looked up (tag overlay-<key>) and written
  std::vector<std::string> sources;   // apt sources files; empty: the host's
  oci::Platform platform;             // one platform
  ScratchVariant variant = ScratchVariant::kMinbase;
  bool allow_unsigned = false;
};

struct ScratchImage {
  OverlayKey key;
  oci::Descriptor manifest;  // the platform's image manifest
  bool cached = false;       // found by its key: nothing was resolved or built
};

// With ctx.offline the archive's remembered InRelease, cached indexes and
// .debs are used; what is missing is named, with the next step.
Result<ScratchImage> scratch_image(const ScratchImageRequest& request, BuildContext& ctx);

}  // namespace strata::layer
