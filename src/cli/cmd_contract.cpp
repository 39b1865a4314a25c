// strata contract scan DIR [--format yaml|json]
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "contract/scan/scan.hpp"
#include "contract/model/serialize.hpp"

namespace strata::cli {
namespace {

struct ContractScanArgs {
  std::string dir;
  std::string format = "yaml";
};

void run_scan(const GlobalOptions& g, const ContractScanArgs& args) {
  auto contract = check(contract::scan_repository(args.dir));
  bool json = g.json || args.format == "json";
  std::string doc = json ? contract::to_json(contract) : contract::to_yaml(contract);
  if (!doc.ends_with('\n')) doc += '\n';
  std::cout << doc;
  std::cout.flush();
  if (!std::cout) throw Exit{kExitFailure, "cannot write the contract for " + args.dir + " to standard output"};
  // Warnings are part of the document; repeat their count on stderr so a
  // human running the command notices them.
  if (!contract.warnings.empty()) {
    log_info(g, "strata contract scan: " + std::to_string(contract.warnings.size()) + " warning(s) in " + args.dir +
                    " (see `warnings` in the contract)");
  }
}

}  // namespace

void register_contract(CLI::App& app, GlobalOptions& g) {
  auto* contract = add_command(app, "contract", "Derive what a repository needs (environment contract)", "");
  contract->require_subcommand(1);
  auto args = std::make_shared<ContractScanArgs>();
  auto* scan = add_command(*contract, "scan",
                           "Print the environment contract of a repository: runtime floors, native builds, system "
                           "libraries, egress hosts, required commands — each with its evidence. The repository is "
                           "read, never executed.",
                           "  strata contract scan .\n  strata contract scan ~/src/app --format json\n");
  // No ExistingDirectory check: a directory that cannot be read is a failure
  // (exit 1, docs/contract.md), not a usage error.
  scan->add_option("DIR", args->dir, "Repository directory")->required();
  scan->add_option("--format", args->format, "Output format (default yaml)")->check(CLI::IsMember({"yaml", "json"}));
  scan->callback([&g, args] { run_scan(g, *args); });
}

}  // namespace strata::cli
