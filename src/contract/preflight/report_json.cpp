#include "contract/preflight/report_json.hpp"

namespace strata::contract::preflight {

nlohmann::ordered_json report_to_json(const Report& r) {
  nlohmann::ordered_json j;
  j["ok"] = r.ok();
  j["image"] = r.image;
  j["image_digest"] = r.image_digest;
  j["root"] = r.root;
  j["contract_digest"] = r.contract_digest;
  auto gaps = nlohmann::ordered_json::array();
  for (const auto& g : r.gaps)
    gaps.push_back({{"kind", gap_kind_name(g.kind)}, {"requirement", g.requirement}, {"found", g.found}, {"fix", g.fix}});
  j["gaps"] = std::move(gaps);
  j["satisfied"] = r.satisfied;
  j["provided_at_task_time"] = r.task_time;
  j["egress_hosts"] = r.egress_hosts;
  j["egress_checked"] = r.egress_checked;
  j["message"] = r.message.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.message);
  return j;
}

}  // namespace strata::contract::preflight
