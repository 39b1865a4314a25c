// The cilium format: a CiliumNetworkPolicy (cilium.io/v2). One egress rule
// lets the selected endpoints ask kube-dns (port 53) for exactly the policy's
// names — toFQDNs learns addresses only from DNS answers Cilium's DNS proxy
// sees — and one egress rule per port allows those names (`toFQDNs`
// `matchName`, `matchPattern` for a declared "*.<name>") with `rules.http`
// GET and HEAD. On 443 those HTTP rules see requests only where Cilium
// terminates TLS (`terminatingTLS`/`originatingTLS`), which the header says.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/egress/policy.hpp"
#include "contract/egress/policy_file.hpp"

namespace strata::contract::egress {

struct CiliumOptions {
  std::string name;  // metadata.name; "" = strata-egress-<repo directory name>
  // endpointSelector.matchLabels; empty = {"strata.dev/egress": <name>}.
  std::vector<std::pair<std::string, std::string>> selector;
};

// "role=sandbox" → {"role", "sandbox"}, checked as a Kubernetes label.
Result<std::pair<std::string, std::string>> parse_selector(std::string_view s);

std::string render_cilium(const Policy& p, const CiliumOptions& o);

// What a CiliumNetworkPolicy allows: each egress rule's toFQDNs names on
// its toPorts ports, with the methods of its rules.http (none = every
// method). Rules without toFQDNs (the DNS rule) grant no host.
Result<Allowlist> read_cilium_policy(std::string_view text, const std::string& file);

}  // namespace strata::contract::egress
