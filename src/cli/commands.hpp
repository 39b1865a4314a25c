// Registration functions, one per subcommand file. Each adds its subcommand
// to `app`, parses into a typed options struct and calls the library. The
// packages commands take the archive HTTP transport main builds.
#pragma once

#include <memory>

#include "cli/app.hpp"
#include "oci/http/transport.hpp"

namespace strata::cli {

void register_inspect(CLI::App& app, GlobalOptions& g);
void register_copy(CLI::App& app, GlobalOptions& g);
void register_tags(CLI::App& app, GlobalOptions& g);
void register_import(CLI::App& app, GlobalOptions& g);
void register_contract(CLI::App& app, GlobalOptions& g);
void register_egress(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_mirror(CLI::App& app, GlobalOptions& g);
void register_key(CLI::App& app, GlobalOptions& g);
void register_sbom(CLI::App& app, GlobalOptions& g);

void register_resolve(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_fetch(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_build(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_plan(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_preflight(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_provision(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_toolchain(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_cache(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_bundle(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);

}  // namespace strata::cli
