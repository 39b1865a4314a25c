#include "contract/provision/provision.hpp"

namespace strata::contract::provision {

Result<ProvisionResult> provision(const ProvisionRequest& r, ProvisionContext& ctx) {
  route::PlanContext pc{.http = ctx.http, .clock = ctx.clock, .home = ctx.home, .facts = ctx.facts};
  ProvisionResult out;
  STRATA_TRY(out.planned, route::plan_repository(r.plan, pc));
  const route::Plan& plan = out.planned.plan;
  if (!out.planned.overlay) {
    out.digest = out.planned.base.manifest_digest;
    out.cached = true;
    out.image_plan = plan;
    out.preflight = preflight::check(plan, out.planned.base, r.plan.base, r.provision_hint);
    return out;
  }
  if (!r.open_dest) {
    return fail(ErrorCode::kInvalidArgument, "provision: the plan needs an overlay but no destination was given");
  }
  STRATA_TRY(oci::Store* dest, r.open_dest());
  layer::BuildRequest build{.plan = *out.planned.overlay, .dest = dest, .dest_tag = r.dest_tag};
  layer::BuildContext bc{.http = ctx.http, .clock = ctx.clock, .home = ctx.home, .jobs = ctx.jobs,
                         .base_fs = ctx.base_fs, .observer = ctx.observer,
                         .index_max_age = r.plan.index_max_age};
  STRATA_TRY(auto built, layer::build(build, bc));
  out.digest = built.root.digest.str();
  out.cached = built.cached;
  out.build = std::move(built);
  oci::Platform platform = out.planned.overlay->platforms.front();
  STRATA_TRY(auto facts, with_context(image::read_image_facts(*dest, out.digest, platform, ctx.facts),
                                      "reading the overlay " + out.digest));
  const std::string where = dest->describe() + "@" + out.digest;
  out.image_plan = route::replan(out.planned, facts, where);
  out.preflight = preflight::check(out.image_plan, facts, where, r.provision_hint);
  return out;
}

}  // namespace strata::contract::provision
