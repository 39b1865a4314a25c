// strata egress render (--repo DIR | --contract FILE) --format openshell|cilium|squid|json
//   [--include declared|inferred|all] [--tls connect|bump] [--selector KEY=VALUE]… [--name NAME]
//   [--output FILE] [--base REF [--sources FILE]… [--platform P] [--toolchain-source TOOL=npm|URL]…
//   [--no-toolchain-layer]]: with a base, the hosts the plan adds too (contract::route::render_plan_egress).
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "contract/egress/render.hpp"
#include "contract/route/plan_egress.hpp"
#include "util/clock.hpp"
#include "util/fs.hpp"

namespace strata::cli {
namespace {

struct EgressRenderArgs {
  std::string repo, contract, format, include = "all", tls = "connect", name, output;
  std::vector<std::string> selectors;
  DecisionFlags plan;  // --base and the plan's options: the plan's hosts join the policy
};

void run_render(const GlobalOptions& g, const EgressRenderArgs& a, oci::http::Transport& http) {
  namespace eg = contract::egress;
  if (a.repo.empty() == a.contract.empty())
    throw Exit{kExitUsage, "egress render: give exactly one of --repo DIR and --contract FILE (see `strata egress render --help`)"};
  eg::RenderRequest r;
  r.repo = a.repo;
  r.contract_file = a.contract;
  r.format = a.format;
  r.strata_version = STRATA_VERSION;
  auto include = eg::parse_include(a.include);
  if (!include) throw Exit{kExitUsage, include.error().message()};
  r.include = *include;
  auto tls = eg::parse_squid_tls(a.tls);
  if (!tls) throw Exit{kExitUsage, tls.error().message()};
  r.tls = *tls;
  r.cilium.name = a.name;
  for (const auto& s : a.selectors) {
    auto kv = eg::parse_selector(s);
    if (!kv) throw Exit{kExitUsage, kv.error().message()};
    r.cilium.selector.push_back(*kv);
  }
  eg::Rendered out;
  if (a.plan.image.empty()) {
    out = check(eg::render_egress(r));
  } else {
    // The plan's request as `strata plan --base` builds it; the contract is
    // the render's (--repo or --contract).
    DecisionFlags f = a.plan;
    f.repo.clear();
    f.contract.clear();
    oci::OpenedStore base;
    auto request = plan_request(g, f, base);
    DecisionCaches caches(g);
    auto ctx = caches.plan_context(g, http);
    out = check(contract::route::render_plan_egress(r, std::move(request), ctx));
  }
  if (!a.output.empty()) {
    check(fs::write_file_atomic(a.output, out.text));
    auto back = check(fs::read_file(a.output, out.text.size() + 1));
    if (back != out.text) throw Exit{kExitFailure, "wrote " + a.output + " but it reads back different; disk trouble?"};
  }
  if (g.json) {
    nlohmann::ordered_json j;
    j["format"] = a.format;
    j["include"] = eg::include_name(out.policy.header.include);
    j["repo"] = out.policy.header.repo;
    j["contract_digest"] = out.policy.header.contract_digest;
    j["hosts"] = nlohmann::ordered_json::array();
    for (const auto& h : out.policy.hosts)
      j["hosts"].push_back({{"host", h.host}, {"port", h.port}, {"source", h.label()}});
    j["notes"] = out.policy.notes;
    if (a.output.empty()) j["policy"] = out.text;
    else j["output"] = a.output;
    std::cout << j.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
  } else if (a.output.empty()) {
    std::cout << out.text;
  }
  std::cout.flush();
  if (!std::cout) throw Exit{kExitFailure, "cannot write the egress policy to standard output"};
  std::size_t declared = 0;
  for (const auto& h : out.policy.hosts) declared += h.declared;
  log_info(g, "strata egress render: " + std::to_string(out.policy.hosts.size()) + " host(s) (" +
                  std::to_string(declared) + " declared, " + std::to_string(out.policy.hosts.size() - declared) +
                  " inferred), read-only" + (a.output.empty() ? "" : ", written to " + a.output) +
                  (out.policy.notes.empty() ? "" : "; " + std::to_string(out.policy.notes.size()) + " note(s) in the header"));
}

}  // namespace

void register_egress(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto* egress = add_command(app, "egress", "The repository's read-only egress policy", "");
  egress->require_subcommand(1);
  auto a = std::make_shared<EgressRenderArgs>();
  auto* render = add_command(
      *egress, "render",
      "Write the read-only (GET/HEAD) egress policy of a repository: the hosts it declares in .mac/project.yaml "
      "and the hosts its contract infers, each labelled, as an OpenShell policy, a CiliumNetworkPolicy, a squid.conf "
      "fragment or plain JSON. Sorted, with a header naming the repository, the contract digest and the strata "
      "version. A declaration that cannot be granted (bad host, port, access or a duplicate) is an error naming "
      "the file and the entry.",
      "  strata egress render --repo . --format openshell\n"
      "  strata egress render --contract contract.yaml --format cilium --selector role=sandbox\n"
      "  strata egress render --repo . --format squid --tls connect --include declared -o egress.conf\n"
      "  strata egress render --repo . --format json --base docker://debian:bookworm --toolchain-source node=npm\n");
  render->add_option("--repo", a->repo, "Repository to scan")->check(CLI::ExistingDirectory);
  render->add_option("--contract", a->contract, "Contract file from `strata contract scan` (YAML or JSON)")
      ->check(CLI::ExistingFile);
  render->add_option("--format", a->format, "openshell, cilium, squid or json")
      ->required()
      ->check(CLI::IsMember({"openshell", "cilium", "squid", "json"}));
  render->add_option("--include", a->include, "declared, inferred or all (default: all, each labelled)");
  render->add_option("--tls", a->tls, "squid: connect (CONNECT to host:port only; default) or bump (ssl_bump)");
  render->add_option("--selector", a->selectors, "cilium: endpointSelector label KEY=VALUE (repeatable)");
  render->add_option("--name", a->name, "cilium: metadata.name (default strata-egress-<repo directory>)");
  render->add_option("-o,--output", a->output, "Write the policy to FILE (atomically) instead of standard output");
  render->add_option("--base", a->plan.image,
                     "Also grant every host the plan against this base needs (each task toolchain's source, e.g. "
                     "nodejs.org), so `strata preflight --egress-policy` of the policy against it passes");
  add_archive_options(render, a->plan);
  add_toolchain_options(render, a->plan);
  render->callback([&g, a, http] {
    if (a->plan.image.empty() && (!a->plan.sources.empty() || !a->plan.platform.empty() || !a->plan.variant.empty() ||
                                  !a->plan.toolchain_sources.empty() || a->plan.no_toolchain_layer))
      throw Exit{kExitUsage, "egress render: --sources, --platform and the toolchain options need --base REF"};
    run_render(g, *a, *http);
  });
}

}  // namespace strata::cli
