// The json format of an egress policy: strata's own plain allowlist, every
// host with its port, methods, origin and evidence (docs/egress.md). This
// file reads it back; policy_file.hpp dispatches here.
#pragma once

#include <string>
#include <string_view>

#include "contract/egress/policy_file.hpp"

namespace strata::contract::egress {

inline constexpr std::string_view kJsonPolicyKind = "strata-egress-policy";
inline constexpr int kJsonPolicyVersion = 1;

// Parses the json format. Unknown keys are refused (a misspelt "metods" must
// not widen a grant); `file` names the file in every error.
Result<Allowlist> read_json_policy(std::string_view text, const std::string& file);

}  // namespace strata::contract::egress
