// A plan as people and machines read it: a table (one line per row: kind,
// name, need, layer, why; then the download-or-compile choices, the stale
// runtimes, the overlay) and one JSON document (the rows, the overlay
// request — base, packages, key — and the contract's digest). Pure.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "contract/route/plan.hpp"

namespace strata::contract::route {

nlohmann::ordered_json plan_to_json(const Plan& p);
std::string plan_table(const Plan& p);

}  // namespace strata::contract::route
