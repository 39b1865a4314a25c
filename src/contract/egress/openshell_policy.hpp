// The openshell format: an NVIDIA OpenShell sandbox policy (`version: 1`,
// `network_policies`), one entry for declared hosts and one for inferred
// ones, each endpoint `protocol: rest`, `access: read-only` (OpenShell's
// preset: GET, HEAD, OPTIONS), `enforcement: enforce`, and
// `allow_encoded_slash: true` for npm registries (scoped packages are
// fetched as /@scope%2Fname). `binaries` are left out: strata does not know
// the executables' paths in the image. The shape follows OpenShell's policy
// schema: no field it does not know, `access` never with `rules` or with
// `protocol: tcp`, an L7 protocol always with an access preset.
#pragma once

#include <string>
#include <string_view>

#include "contract/egress/policy.hpp"
#include "contract/egress/policy_file.hpp"

namespace strata::contract::egress {

std::string render_openshell(const Policy& p);

// What an OpenShell policy grants: per endpoint, the host and port(s) and
// the methods of its access preset or rules (an endpoint without an L7
// protocol, or in audit mode, passes every method). Refuses what OpenShell's
// loader refuses (unknown fields, `access` with `rules` or `protocol: tcp`,
// an L7 protocol with neither), naming the policy entry and endpoint.
Result<Allowlist> read_openshell_policy(std::string_view text, const std::string& file);

}  // namespace strata::contract::egress
