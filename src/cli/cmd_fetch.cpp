// strata fetch --lock FILE [--sources FILE]… [--offline]
#include <iostream>

#include "cli/commands.hpp"
#include "layer/apt/deb_fetcher.hpp"
#include "layer/apt/lock_file.hpp"
#include "layer/apt/lock_mirror.hpp"
#include "layer/apt/resolve_request.hpp"
#include "oci/http/offline_transport.hpp"
#include "util/clock.hpp"
#include "util/strings.hpp"

namespace strata::cli {
namespace {

struct FetchArgs {
  std::string lock;
  std::vector<std::string> sources;
  bool offline = false;
};

void run_fetch(const GlobalOptions& g, const FetchArgs& a, oci::http::Transport& http) {
  auto lock = check(layer::read_lock_file(a.lock));
  // --sources: the same packages from a mirror, checked by the lock's hashes.
  if (!a.sources.empty()) lock = check(layer::repoint_lock(std::move(lock), check(layer::load_sources(a.sources))));
  layer::FetchOptions o;
  o.home = g.open_options().home;
  o.jobs = static_cast<unsigned>(g.jobs);
  o.offline = a.offline || g.offline;
  o.clock = &system_clock();
  oci::http::OfflineTransport none;  // with --offline nothing may touch the network
  auto report = check(layer::fetch_debs(o.offline ? static_cast<oci::http::Transport&>(none) : http, lock, o));
  if (g.json) {
    std::cout << nlohmann::json{{"downloaded", report.downloaded}, {"cached", report.cached}, {"bytes", report.bytes}}.dump(2)
              << "\n";
    return;
  }
  std::cout << report.downloaded << " downloaded (" << str::human_bytes(report.bytes) << "), " << report.cached
            << " already cached\n";
}

}  // namespace

void register_fetch(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto a = std::make_shared<FetchArgs>();
  auto* cmd = add_command(app, "fetch", "Download and verify every .deb of a lock into the local cache",
                          "  strata fetch --lock overlay.lock\n"
                          "  strata fetch --lock overlay.lock --offline   # check an air-gapped cache\n"
                          "  strata fetch --lock overlay.lock --sources internal.list   # from a mirror\n");
  cmd->add_option("--lock", a->lock, "Lock file written by strata resolve/build --lock-out")
      ->required()
      ->check(CLI::ExistingFile);
  cmd->add_option("--sources", a->sources, "Fetch from this mirror of the lock's sources (repeatable; same suite)")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--offline", a->offline, "Never use the network; fail naming what is missing");
  cmd->callback([&g, a, http] { run_fetch(g, *a, *http); });
}

}  // namespace strata::cli
