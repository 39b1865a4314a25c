// A repository named in a pre-warm config (`repos:`) as the job that warms
// its overlay: scanned and routed against its base for one platform exactly
// as `strata provision` does, so the key prewarm builds is the key provision
// looks up. A plan that needs no overlay gives a job with nothing to build;
// a repository that cannot be scanned or routed gives a job that fails with
// the reason.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <vector>

#include "contract/route/plan_request.hpp"
#include "layer/cache/prewarm.hpp"
#include "layer/cache/prewarm_config.hpp"
#include "oci/open_store.hpp"

namespace strata::contract::provision {

layer::PrewarmJob prewarm_job(std::string where, const route::PlanRequest& request, route::PlanContext& ctx);

struct PrewarmRepoOptions {
  oci::OpenOptions open;           // to open each repository's base
  std::int64_t index_max_age = 0;  // as provision's --index-max-age (route::PlanRequest::index_max_age)
};

// Every `repos:` entry of `config` as jobs: one per platform (the entry's,
// else the config's, else this machine's), each planned as `strata
// provision DIR --base B --platform P` plans it, with the config's sources
// when the entry names none. Each base is opened into `bases`, which must
// outlive the jobs. A base that cannot be opened, or a platform that is not
// one, is the error; a repository that cannot be planned is its job's.
Result<std::vector<layer::PrewarmJob>> prewarm_repo_jobs(const layer::PrewarmConfig& config,
                                                         const PrewarmRepoOptions& options,
                                                         std::list<oci::OpenedStore>& bases,
                                                         route::PlanContext& ctx);

}  // namespace strata::contract::provision
