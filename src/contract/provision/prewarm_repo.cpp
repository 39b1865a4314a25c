#include "contract/provision/prewarm_repo.hpp"

namespace strata::contract::provision {

layer::PrewarmJob prewarm_job(std::string where, const route::PlanRequest& request, route::PlanContext& ctx) {
  layer::PrewarmJob job{.where = std::move(where), .spec = std::nullopt};
  auto planned = route::plan_repository(request, ctx);
  if (!planned) {
    job.error = planned.error().message();
    return job;
  }
  if (planned->overlay) job.spec = std::move(planned->overlay->spec);
  return job;
}

}  // namespace strata::contract::provision
