// The json format of an egress policy: strata's own plain allowlist, every
// host with its port, methods, whether it was declared or inferred, its
// origin, reason and evidence (docs/egress.md). Written by render_json, read
// back by read_json_policy (policy_file.hpp dispatches here).
#pragma once

#include <string>
#include <string_view>

#include "contract/egress/policy.hpp"
#include "contract/egress/policy_file.hpp"

namespace strata::contract::egress {

inline constexpr std::string_view kJsonPolicyKind = "strata-egress-policy";
inline constexpr int kJsonPolicyVersion = 1;

// Pretty JSON, two-space indent, trailing newline; keys in a fixed order.
std::string render_json(const Policy& p);

// Parses the json format. Unknown keys are refused (a misspelt "metods" must
// not widen a grant); `file` names the file in every error.
Result<Allowlist> read_json_policy(std::string_view text, const std::string& file);

}  // namespace strata::contract::egress
