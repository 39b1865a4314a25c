// `strata preflight` as a library call: the contract routed against the
// image to check (plan_repository with the image as the base, so the fix
// names the overlay key that image would get), then check() (preflight.hpp).
#pragma once

#include <string>

#include "contract/preflight/preflight.hpp"
#include "contract/route/plan_request.hpp"

namespace strata::contract::preflight {

struct Checked {
  route::PlannedRepo planned;
  Report report;
};

// `provision_hint` is the fix command for overlay gaps; `egress` optional.
Result<Checked> preflight_image(const route::PlanRequest& request, route::PlanContext& ctx,
                                const std::string& provision_hint, const EgressCheck* egress = nullptr);

}  // namespace strata::contract::preflight
