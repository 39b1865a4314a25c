#include "cli/cmd_contract.hpp"

#include <iostream>
#include <memory>
#include <string>

#include "contract/scan.hpp"
#include "contract/serialize.hpp"

namespace strata::cli {
namespace {

struct ContractScanArgs {
  std::string dir;
  std::string format = "yaml";
};

void run_scan(const ContractScanArgs& args) {
  auto contract = contract::scan_repository(args.dir);
  if (!contract) {
    std::cerr << "strata contract scan: " << contract.error().message() << "\n";
    throw CLI::RuntimeError(1);
  }
  std::cout << (args.format == "json" ? contract::to_json(*contract) : contract::to_yaml(*contract));
  std::cout.flush();
  if (!std::cout) {
    std::cerr << "strata contract scan: cannot write the contract for " << args.dir << " to standard output\n";
    throw CLI::RuntimeError(1);
  }
  // Warnings are part of the document; repeat their count on stderr so a
  // human running the command notices them.
  if (!contract->warnings.empty())
    std::cerr << "strata contract scan: " << contract->warnings.size() << " warning(s) in " << args.dir
              << " (see `warnings` in the contract)\n";
}

}  // namespace

void register_contract_commands(CLI::App& app) {
  CLI::App* contract = app.add_subcommand("contract", "Derive what a repository needs (environment contract)");
  contract->require_subcommand(1);
  auto args = std::make_shared<ContractScanArgs>();
  CLI::App* scan = contract->add_subcommand(
      "scan",
      "Print the environment contract of a repository: runtime floors, native builds, system "
      "libraries, egress hosts, required commands — each with its evidence. The repository is "
      "read, never executed.\n\nExamples:\n  strata contract scan .\n  strata contract scan ~/src/app --format json");
  scan->add_option("DIR", args->dir, "Repository directory")->required()->check(CLI::ExistingDirectory);
  scan->add_option("--format", args->format, "Output format (default yaml)")
      ->check(CLI::IsMember({"yaml", "json"}));
  scan->callback([args] { run_scan(*args); });
}

}  // namespace strata::cli
