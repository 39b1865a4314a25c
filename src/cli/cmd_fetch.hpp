// `strata fetch --lock FILE [--offline] [--jobs N]`: download and verify
// every .deb of a lock into $STRATA_HOME/debs (pre-seeding a machine or an
// air-gapped mirror). A thin shell over layer::fetch_debs.
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>

#include <CLI/CLI.hpp>

#include "oci/http/transport.hpp"
#include "util/clock.hpp"

namespace strata::cli {

struct FetchCommandDeps {
  std::shared_ptr<oci::http::Transport> transport;  // REQUIRED unless --offline
  Clock* clock = nullptr;                           // default: system_clock()
  std::function<std::filesystem::path()> home;      // $STRATA_HOME
  std::ostream* out = nullptr;
  std::ostream* err = nullptr;
};

CLI::App* register_fetch(CLI::App& app, FetchCommandDeps deps, int& exit_code);

}  // namespace strata::cli
