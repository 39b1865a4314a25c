#include "contract/route/plan_output.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace strata::contract::route {

nlohmann::ordered_json plan_to_json(const Plan& p) {
  using nlohmann::ordered_json;
  ordered_json j;
  j["contract_digest"] = p.contract_digest;
  j["root"] = p.root;
  j["base"] = p.base;
  j["base_digest"] = p.base_digest;
  j["platform"] = p.platform;
  ordered_json rows = ordered_json::array();
  for (const auto& r : p.rows) {
    ordered_json x;
    x["kind"] = kind_name(r.kind);
    x["name"] = r.name;
    x["need"] = r.need;
    x["layer"] = layer_name(r.layer);
    x["why"] = r.why;
    x["packages"] = r.packages;
    if (!r.commands.empty()) x["commands"] = r.commands;
    x["required_by"] = r.required_by;
    if (r.toolchain) {
      x["toolchain"] = {{"tool", r.toolchain->tool},
                        {"version", r.toolchain->version},
                        {"range", r.toolchain->range},
                        {"url", r.toolchain->url},
                        {"hosts", r.toolchain->hosts},
                        {"source", r.toolchain->source}};
    }
    if (!r.shadow.empty()) x["shadow"] = r.shadow;
    x["purpose"] = purpose_name(r.purpose);
    x["needed"] = r.needed;
    rows.push_back(std::move(x));
  }
  j["rows"] = std::move(rows);
  ordered_json ds = ordered_json::array();
  for (const auto& d : p.decisions) ds.push_back({{"package", d.package}, {"choice", d.choice}, {"why", d.why}});
  j["decisions"] = std::move(ds);
  if (p.needs_overlay()) {
    j["overlay"] = {{"base", p.base}, {"packages", p.overlay_packages}, {"key", p.overlay_key}};
  } else {
    j["overlay"] = nullptr;
  }
  j["toolchain_layer"] = p.toolchain_layer;
  j["include_run"] = p.include_run;
  j["warnings"] = p.warnings;
  return j;
}

std::string plan_table(const Plan& p) {
  std::vector<std::array<std::string, 5>> lines{{"KIND", "NAME", "NEED", "LAYER", "WHY"}};
  std::vector<std::string> left_out;
  for (const auto& r : p.rows) {
    // A row reported but not provisioned says so where its layer is read.
    std::string layer = r.needed ? layer_name(r.layer) : std::string("(") + layer_name(r.layer) + ")";
    lines.push_back({kind_name(r.kind), r.name, r.need, layer, r.why});
    if (!r.needed && r.purpose == Purpose::kRun) left_out.push_back(r.name);
  }
  std::array<std::size_t, 4> width{};
  for (const auto& l : lines)
    for (std::size_t i = 0; i < width.size(); ++i) width[i] = std::max(width[i], l[i].size());
  std::string out;
  for (const auto& l : lines) {
    for (std::size_t i = 0; i < width.size(); ++i) out += l[i] + std::string(width[i] - l[i].size() + 2, ' ');
    out += l[4] + "\n";
  }
  for (const auto& d : p.decisions) out += "decision: " + d.package + " " + d.choice + " — " + d.why + "\n";
  for (const auto& r : p.rows)
    if (r.toolchain)
      out += "toolchain: " + r.toolchain->tool + " " + r.toolchain->version + " from " + r.toolchain->source + " (" +
             str::join(r.toolchain->hosts, ", ") + ")" +
             (p.toolchain_layer ? "" : ", installed by the task (--no-toolchain-layer)") + "\n";
  for (const auto& r : p.rows)
    if (!r.shadow.empty()) out += "stale: " + r.shadow + "\n";
  if (p.needs_overlay()) {
    out += "overlay: " + p.base + " + " + str::join(p.overlay_packages, " ") + " (key " + p.overlay_key + ")\n";
  } else {
    out += "overlay: none (the base is enough)\n";
  }
  if (!left_out.empty())
    out += "left out: " + std::to_string(left_out.size()) + " only the production image needs (" +
           str::join(left_out, ", ") + "): --include run provisions them\n";
  for (const auto& w : p.warnings) out += "warning: " + w + "\n";
  return out;
}

}  // namespace strata::contract::route
