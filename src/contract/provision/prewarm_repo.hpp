// A repository named in a pre-warm config (`repos:`) as the job that warms
// its overlay: scanned and routed against its base for one platform exactly
// as `strata provision` does, so the key prewarm builds is the key provision
// looks up. A plan that needs no overlay gives a job with nothing to build;
// a repository that cannot be scanned or routed gives a job that fails with
// the reason.
#pragma once

#include <string>

#include "contract/route/plan_request.hpp"
#include "layer/cache/prewarm.hpp"

namespace strata::contract::provision {

layer::PrewarmJob prewarm_job(std::string where, const route::PlanRequest& request, route::PlanContext& ctx);

}  // namespace strata::contract::provision
