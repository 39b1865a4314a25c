#include "layer/build/scratch_image.hpp"

namespace strata::layer {

Result<ScratchImage> scratch_image(const ScratchImageRequest& r, BuildContext& ctx) {
  if (!r.store) return fail(ErrorCode::kInvalidArgument, "scratch base: no store to keep it in");
  OverlaySpec spec;
  spec.base = std::string(kScratchBase);
  spec.sources = r.sources;
  spec.platforms = {r.platform.architecture.empty() ? oci::host_platform() : r.platform};
  spec.variant = r.variant;
  spec.allow_unsigned = r.allow_unsigned;
  STRATA_TRY(OverlayPlan plan, plan_overlay(std::move(spec)));
  // One platform: the build's root is that platform's image manifest.
  BuildRequest request{.plan = std::move(plan), .dest = r.store};
  auto built = build(request, ctx);
  if (!built) {
    std::string next = ctx.offline ? ". The scratch base is built once with the network (this command without "
                                     "--offline, or `strata build --base scratch`), which caches it, its indexes and .debs"
                                   : "";
    return fail(built.error().code(), "the scratch base (" + std::string(scratch_variant_name(r.variant)) +
                                          " from the apt sources): " + built.error().message() + next);
  }
  return ScratchImage{.key = built->key, .manifest = built->root, .cached = built->cached};
}

}  // namespace strata::layer
