// strata preflight --image REF (--repo DIR | --contract FILE) [--egress-policy FILE]:
// 0 when the image satisfies the contract, 3 with one message naming every
// gap and the fix. The library call is contract::preflight::preflight_image.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "contract/egress/policy_file.hpp"
#include "contract/preflight/preflight_request.hpp"
#include "contract/preflight/report_json.hpp"
#include "util/clock.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {
namespace {

struct PreflightArgs {
  DecisionFlags f;
  std::string egress_policy;
};

std::string provision_hint(const DecisionFlags& f, const std::string& root) {
  std::string hint = "strata provision " + (f.repo.empty() ? (root.empty() ? std::string("DIR") : root) : f.repo) +
                     " --base " + f.image;
  for (const auto& s : f.sources) hint += " --sources " + s;
  for (const auto& s : f.toolchain_sources) hint += " --toolchain-source " + s;
  return hint;
}

void run_preflight(const GlobalOptions& g, const PreflightArgs& a, oci::http::Transport& http) {
  const DecisionFlags& f = a.f;
  if (f.repo.empty() == f.contract.empty()) throw Exit{kExitUsage, "preflight: give exactly one of --repo DIR or --contract FILE"};
  std::optional<contract::preflight::EgressCheck> egress;
  if (!a.egress_policy.empty()) {
    auto list = std::make_shared<contract::egress::Allowlist>(check(contract::egress::read_policy_file(a.egress_policy)));
    egress = contract::preflight::EgressCheck{
        a.egress_policy, [list](std::string_view host) { return contract::egress::allows_read(*list, host); }};
  }
  oci::OpenedStore image;
  auto request = plan_request(g, f, image);
  DecisionCaches caches(g);
  auto ctx = caches.plan_context(g, http);
  std::string root = request.contract ? request.contract->root : f.repo;
  auto checked = check(contract::preflight::preflight_image(request, ctx, provision_hint(f, root), egress ? &*egress : nullptr));
  const auto& rep = checked.report;
  if (g.json) {
    std::cout << oci::dump_json(contract::preflight::report_to_json(rep), 2) << "\n";
    std::cout.flush();
    if (!rep.ok()) throw Exit{kExitGaps, rep.message};
    return;
  }
  if (!rep.ok()) throw Exit{kExitGaps, rep.message};
  // The root is the contract's (a file): terminal_safe.
  std::cout << terminal_safe("ok: " + f.image + " satisfies " + (root.empty() ? "the contract" : root) + " (" +
                             std::to_string(rep.satisfied.size()) + " in the image, " +
                             std::to_string(rep.task_time.size()) + " provided at task time)")
            << "\n";
  for (const auto& t : rep.task_time) log_info(g, "provided at task time: " + t);
}

}  // namespace

void register_preflight(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto a = std::make_shared<PreflightArgs>();
  auto* cmd = add_command(
      app, "preflight",
      "Check an image against a repository's contract before any work starts: 0 when satisfied, 3 with one "
      "message listing every gap and the fix",
      "  strata preflight --image local:dev:1 --repo .\n"
      "  strata preflight --image oci:/srv/img:dev --contract contract.yaml --sources bookworm.sources --json\n\n"
      "Requirements the plan routes to project-bootstrap are provided at task time, not gaps; a task toolchain\n"
      "is a gap `strata provision` fixes (it installs it as a layer), unless --no-toolchain-layer says the task\n"
      "installs its own runtimes. A runtime in the image below its floor is a gap (it shadows the toolchain on PATH).\n");
  cmd->add_option("--image", a->f.image,
                  "Image to check, or scratch: the image `strata provision --base scratch` starts from")
      ->required();
  cmd->add_option("--repo", a->f.repo, "Repository whose contract to check")->check(CLI::ExistingDirectory);
  cmd->add_option("--contract", a->f.contract, "Contract file (`strata contract scan` output, YAML or JSON)")
      ->check(CLI::ExistingFile);
  cmd->add_option("--egress-policy", a->egress_policy,
                  "Also check that this egress policy (any format `strata egress render` writes) lets a read-only "
                  "client reach every needed host")
      ->check(CLI::ExistingFile);
  add_archive_options(cmd, a->f);
  add_toolchain_options(cmd, a->f);
  add_include_option(cmd, a->f);
  cmd->callback([&g, a, http] { run_preflight(g, *a, *http); });
}

}  // namespace strata::cli
