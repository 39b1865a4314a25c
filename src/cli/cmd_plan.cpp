// strata plan DIR --base REF [--sources FILE]… [--json]: the routing table.
// The library call is contract::route::plan_repository.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "contract/route/plan_output.hpp"
#include "util/clock.hpp"
#include "util/strings.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {
namespace {

void run_plan(const GlobalOptions& g, const DecisionFlags& f, oci::http::Transport& http) {
  oci::OpenedStore base;
  auto request = plan_request(g, f, base);
  DecisionCaches caches(g);
  auto ctx = caches.plan_context(g, http);
  auto planned = check(contract::route::plan_repository(request, ctx));
  if (g.json) {
    std::cout << oci::dump_json(contract::route::plan_to_json(planned.plan), 2) << "\n";
  } else {
    // Its cells quote the repository (names, reasons, evidence): each line
    // of the table made terminal_safe, its line breaks kept.
    const std::string table = contract::route::plan_table(planned.plan);
    const auto lines = str::split(table, '\n');
    for (std::size_t i = 0; i < lines.size(); ++i) {
      if (i + 1 == lines.size() && lines[i].empty()) break;  // the table's last newline
      std::cout << terminal_safe(lines[i]) << "\n";
    }
  }
}

}  // namespace

void register_plan(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto f = std::make_shared<DecisionFlags>();
  auto* cmd = add_command(
      app, "plan",
      "Route each requirement of a repository to the layer that satisfies it: base, project-bootstrap, "
      "task-toolchain, overlay or egress, and why",
      "  strata plan . --base docker://docker.io/library/debian:bookworm\n"
      "  strata plan ~/src/app --base local:dev:1 --sources bookworm.sources --json\n"
      "  strata plan --repo . --base scratch --toolchain-source node=npm\n\n"
      "Text output is a table; --json is one document with the rows, the overlay request (base, packages,\n"
      "key) and the contract's digest. The key is the one `strata build` and `strata provision` use.\n");
  add_repository(cmd, *f);
  cmd->add_option("--base", f->image,
                  "Base image the plan routes against, or scratch: the image `strata build --base scratch` makes "
                  "from the sources")
      ->required();
  add_archive_options(cmd, *f);
  add_toolchain_options(cmd, *f);
  add_include_option(cmd, *f);
  cmd->callback([&g, f, http] {
    repository_given(*f);
    run_plan(g, *f, *http);
  });
}

}  // namespace strata::cli
