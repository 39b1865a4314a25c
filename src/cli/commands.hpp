// Registration functions, one per subcommand file. Each adds its subcommand
// to `app`, parses into a typed options struct and calls the library.
#pragma once

#include "cli/app.hpp"

namespace strata::cli {

void register_inspect(CLI::App& app, GlobalOptions& g);
void register_copy(CLI::App& app, GlobalOptions& g);
void register_tags(CLI::App& app, GlobalOptions& g);
void register_import(CLI::App& app, GlobalOptions& g);
void register_contract(CLI::App& app, GlobalOptions& g);
void register_mirror(CLI::App& app, GlobalOptions& g);

}  // namespace strata::cli
