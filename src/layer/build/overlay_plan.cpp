#include "layer/build/overlay_plan.hpp"

namespace strata::layer {

Result<OverlayPlan> plan_overlay(OverlaySpec spec) {
  if (!spec.scratch() && spec.packages.empty() && spec.lock.empty()) {
    return fail(ErrorCode::kInvalidArgument, "name at least one package to add to --base " + spec.base);
  }
  OverlayPlan plan;
  if (!spec.lock.empty()) {
    STRATA_TRY(plan.lock, read_lock_file(spec.lock));
  }
  plan.platforms = spec.platforms;
  if (plan.platforms.empty() && plan.lock && !plan.lock->platform.empty()) {
    STRATA_TRY(plan.platforms, oci::parse_platforms(plan.lock->platform));
  }
  if (plan.platforms.empty()) plan.platforms = {oci::host_platform()};
  if (spec.compression == oci::Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "--compression: choose gzip, zstd or none");
  }
  STRATA_TRY(plan.key, overlay_key(spec, plan.lock, plan.platforms));
  plan.spec = std::move(spec);
  return plan;
}

}  // namespace strata::layer
