// `strata contract scan DIR [--format yaml|json]`: prints the environment
// contract of a repository (see docs/contract.md). Registration only; the
// work is contract::scan_repository. Exit codes follow CLI.md: 0 success,
// 1 failure (one line on stderr naming DIR), 2 usage.
#pragma once

#include <CLI/CLI.hpp>

namespace strata::cli {

// Adds the `contract` command group (currently `scan`) to `app`. On failure
// the callback prints "strata contract scan: <reason>" to stderr and throws
// CLI::RuntimeError(1), which `return app.exit(e);` in main turns into exit
// status 1. Usage errors surface as CLI::ParseError as usual.
void register_contract_commands(CLI::App& app);

}  // namespace strata::cli
