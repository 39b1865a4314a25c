// `strata egress render` as one library call: read the contract (scan the
// repository, or read a contract file), build the policy, write it in the
// asked format. Pure apart from reading its inputs; never writes a file.
#pragma once

#include <filesystem>
#include <string>

#include "contract/egress/cilium_policy.hpp"
#include "contract/egress/contract_input.hpp"
#include "contract/egress/policy.hpp"
#include "contract/egress/squid_policy.hpp"
#include "util/error.hpp"

namespace strata::contract::egress {

struct RenderRequest {
  std::filesystem::path repo;           // --repo DIR, or
  std::filesystem::path contract_file;  // --contract FILE (exactly one of the two)
  std::string format;                   // openshell | cilium | squid | json
  Include include = Include::kAll;
  SquidTls tls = SquidTls::kConnect;    // squid only
  CiliumOptions cilium;                 // cilium only
  std::string strata_version;           // for the header
};

struct Rendered {
  std::string text;  // the policy document, ending in a newline
  Policy policy;     // what it grants (for a summary)
};

// The formats render_egress writes, in the order help lists them.
inline constexpr const char* kFormats[] = {"openshell", "cilium", "squid", "json"};

Result<Rendered> render_egress(const RenderRequest& r);

// The contract `r` names (scanned, or read from its file): what
// render_egress renders. A caller that adds hosts (route/plan_egress.hpp:
// the plan's) reads it here and renders it with render_contract.
Result<ContractInput> read_render_input(const RenderRequest& r);
Result<Rendered> render_contract(const ContractInput& in, const RenderRequest& r);

// The policy in `format`; `r` supplies the format's options.
Result<std::string> render_policy(const Policy& p, const RenderRequest& r);

}  // namespace strata::contract::egress
