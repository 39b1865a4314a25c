#include "contract/route/plan_egress.hpp"

#include <algorithm>

namespace strata::contract::route {

void add_plan_hosts(Contract& contract, const Plan& plan) {
  for (const Row& r : plan.rows) {
    if (r.kind != Kind::kEgress || !r.needed) continue;
    bool known = std::any_of(contract.egress_hosts.begin(), contract.egress_hosts.end(),
                             [&](const EgressHost& h) { return h.host == r.name; });
    if (known) continue;
    EgressHost h;
    h.host = r.name;
    h.origin = EgressOrigin::kInstallTime;
    h.reason = "plan: " + (r.required_by.empty() ? r.why : r.required_by.front());
    for (const auto& by : r.required_by) h.evidence.push_back({"plan", by, ""});
    contract.egress_hosts.push_back(std::move(h));
  }
}

Result<egress::Rendered> render_plan_egress(const egress::RenderRequest& render, PlanRequest plan, PlanContext& ctx) {
  // The contract is read once, by the one reader: the plan routes what the
  // policy renders.
  STRATA_TRY(auto in, egress::read_render_input(render));
  plan.repo = render.repo;
  plan.contract.reset();
  if (!render.contract_file.empty()) plan.contract = in.contract;
  STRATA_TRY(auto planned, plan_repository(plan, ctx));
  add_plan_hosts(in.contract, planned.plan);
  return egress::render_contract(in, render);
}

}  // namespace strata::contract::route
