// `strata resolve` and `strata fetch`: the packages commands that need the
// archive HTTP transport main builds.
#pragma once

#include <memory>

#include "cli/app.hpp"
#include "oci/http/transport.hpp"

namespace strata::cli {

void register_resolve(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_fetch(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);

// "linux/arm64" → "arm64" (layer::debian_arch over a platform string).
Result<std::string> debian_arch_for_platform(const std::string& platform);

}  // namespace strata::cli
