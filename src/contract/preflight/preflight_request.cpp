#include "contract/preflight/preflight_request.hpp"

namespace strata::contract::preflight {

Result<Checked> preflight_image(const route::PlanRequest& request, route::PlanContext& ctx,
                                const std::string& provision_hint, const EgressCheck* egress) {
  Checked out;
  STRATA_TRY(out.planned, route::plan_repository(request, ctx));
  out.report = check(out.planned.plan, out.planned.base, request.base, provision_hint, egress);
  return out;
}

}  // namespace strata::contract::preflight
