// Writing a Contract as YAML (the default) or JSON. Both come from one
// ordered JSON tree (contract_to_tree), so the two formats cannot drift; the
// field order is the documented one (docs/contract.md). Strings that are not
// UTF-8 come out as U+FFFD in both. Pure functions.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "contract/model/contract.hpp"

namespace strata::contract {

nlohmann::ordered_json contract_to_tree(const Contract& c);
std::string to_json(const Contract& c);   // pretty, two-space indent, trailing newline
std::string to_yaml(const Contract& c);   // block style, trailing newline

}  // namespace strata::contract
