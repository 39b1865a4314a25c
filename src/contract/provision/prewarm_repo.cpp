#include "contract/provision/prewarm_repo.hpp"

#include "oci/platform.hpp"
#include "oci/reference.hpp"

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

Result<std::vector<layer::PrewarmJob>> prewarm_repo_jobs(const layer::PrewarmConfig& config,
                                                         const PrewarmRepoOptions& options,
                                                         std::list<oci::OpenedStore>& bases,
                                                         route::PlanContext& ctx) {
  std::vector<layer::PrewarmJob> jobs;
  for (const auto& r : config.repos) {
    std::vector<std::string> platforms = r.platforms.empty() ? config.platforms : r.platforms;
    if (platforms.empty()) platforms.emplace_back();  // this machine's
    for (const auto& p : platforms) {
      route::PlanRequest request;
      request.repo = r.path;
      request.base = r.base;
      request.variant = r.variant;
      // The base scratch is found (or built, the first time) in the local
      // store, as `strata provision --base scratch` finds it.
      bool scratch = r.base == layer::kScratchBase;
      STRATA_TRY(auto base_ref, oci::parse_image_ref(scratch ? route::kScratchStore : r.base));
      STRATA_TRY(oci::OpenedStore base, oci::open_store(base_ref, scratch ? oci::Access::kWrite : oci::Access::kRead,
                                                        options.open));
      bases.push_back(std::move(base));
      request.base_store = bases.back().store.get();
      if (!scratch) request.base_ref = bases.back().ref;
      request.offline = options.open.offline;
      if (!p.empty()) {
        if (p.find(',') != std::string::npos) {
          return fail(ErrorCode::kInvalidArgument, r.where + ": platform " + p + ": one platform at a time");
        }
        STRATA_TRY(request.platform, oci::parse_platform(p));
      }
      request.sources = r.sources.empty() ? config.sources : r.sources;
      request.index_max_age = options.index_max_age;
      std::string where = r.where + (platforms.size() > 1 ? " (" + p + ")" : "");
      jobs.push_back(prewarm_job(std::move(where), request, ctx));
    }
  }
  return jobs;
}

}  // namespace strata::contract::provision
