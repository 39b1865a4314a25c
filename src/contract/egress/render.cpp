#include "contract/egress/render.hpp"

#include "contract/egress/json_policy.hpp"
#include "contract/egress/openshell_policy.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {

Result<std::string> render_policy(const Policy& p, const RenderRequest& r) {
  if (r.format == "json") return render_json(p);
  if (r.format == "openshell") return render_openshell(p);
  if (r.format == "cilium") return render_cilium(p, r.cilium);
  if (r.format == "squid") return render_squid(p, r.tls);
  return fail(ErrorCode::kInvalidArgument,
              "--format " + str::quote(r.format) + ": expected openshell, cilium, squid or json");
}

Result<ContractInput> read_render_input(const RenderRequest& r) {
  if (r.repo.empty() == r.contract_file.empty())
    return fail(ErrorCode::kInvalidArgument, "give exactly one of --repo DIR and --contract FILE");
  return r.repo.empty() ? read_contract_input(r.contract_file) : scan_for_policy(r.repo);
}

Result<Rendered> render_contract(const ContractInput& in, const RenderRequest& r) {
  PolicyHeader h;
  h.repo = in.contract.root.empty() ? (r.repo.empty() ? r.contract_file.string() : r.repo.string()) : in.contract.root;
  h.contract_digest = in.digest;
  h.strata_version = r.strata_version;
  h.include = r.include;
  std::string source = r.repo.empty() ? r.contract_file.string() : r.repo.string();
  STRATA_TRY(auto policy, with_context(build_policy(in.contract, std::move(h)), "egress policy of " + source));
  STRATA_TRY(auto text, render_policy(policy, r));
  return Rendered{std::move(text), std::move(policy)};
}

Result<Rendered> render_egress(const RenderRequest& r) {
  STRATA_TRY(auto in, read_render_input(r));
  return render_contract(in, r);
}

}  // namespace strata::contract::egress
