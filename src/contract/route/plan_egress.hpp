// `strata egress render --base REF`: the repository's read-only egress
// policy plus every needed egress host of its plan against that base — the
// hosts the plan adds to the contract's (each task toolchain's source:
// nodejs.org, a mirror, the npm registry; a compile fallback's), each
// inferred with the evidence "plan: task toolchain node 20.18.0" — so that
// `strata preflight --egress-policy` of the policy against the same base
// passes. The policy's formats and options are render_egress's
// (egress/render.hpp); the plan is plan_repository's (plan_request.hpp),
// routed once.
#pragma once

#include "contract/egress/render.hpp"
#include "contract/route/plan_request.hpp"

namespace strata::contract::route {

// `plan` names the base (and the sources, platform, toolchain sources);
// its repo/contract are taken from `render`.
Result<egress::Rendered> render_plan_egress(const egress::RenderRequest& render, PlanRequest plan, PlanContext& ctx);

// The contract's egress hosts plus the plan's needed egress rows it lacks.
void add_plan_hosts(Contract& contract, const Plan& plan);

}  // namespace strata::contract::route
