#include "cli/cmd_fetch.hpp"

#include <nlohmann/json.hpp>

#include <iostream>

#include "layer/deb_fetcher.hpp"
#include "layer/lock_file.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::cli {

namespace {

struct FetchArgs {
  std::string lock;
  bool offline = false;
  bool json = false;
  unsigned jobs = 4;
};

std::filesystem::path default_home() {
  if (const char* h = std::getenv("STRATA_HOME"); h && *h) return h;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::filesystem::path(x) / "strata";
  const char* home = std::getenv("HOME");
  return std::filesystem::path(home ? home : "/tmp") / ".cache/strata";
}

}  // namespace

CLI::App* register_fetch(CLI::App& app, FetchCommandDeps deps, int& exit_code) {
  auto args = std::make_shared<FetchArgs>();
  CLI::App* sub = app.add_subcommand("fetch", "Download and verify every .deb of a lock into the local cache");
  sub->footer("Examples:\n  strata fetch --lock overlay.lock\n  strata fetch --lock overlay.lock --offline   # check only");
  sub->add_option("--lock", args->lock, "Lock file written by strata resolve --lock-out")->required()->check(CLI::ExistingFile);
  sub->add_flag("--offline", args->offline, "Never use the network; fail naming what is missing");
  sub->add_option("--jobs", args->jobs, "Parallel downloads")->check(CLI::Range(1, 64));
  sub->add_flag("--json", args->json, "Print one JSON document");
  sub->callback([args, deps, &exit_code] {
    std::ostream& out = deps.out ? *deps.out : std::cout;
    std::ostream& err = deps.err ? *deps.err : std::cerr;
    auto run = [&]() -> Result<layer::FetchReport> {
      STRATA_TRY(std::string text, fs::read_file(args->lock, 64 << 20));
      STRATA_TRY(layer::Lock lock, layer::parse_lock(text, args->lock));
      if (!deps.transport && !args->offline) return fail(ErrorCode::kInvalidArgument, "fetch: no HTTP transport configured");
      layer::FetchOptions o;
      o.home = deps.home ? deps.home() : default_home();
      o.jobs = args->jobs;
      o.offline = args->offline;
      o.clock = deps.clock ? deps.clock : &system_clock();
      struct NoNet final : oci::http::Transport {
        Result<oci::http::Response> send(oci::http::Request& r) override {
          return fail(ErrorCode::kUnavailable, "--offline: refusing to fetch " + r.url);
        }
      } nonet;
      return layer::fetch_debs(deps.transport ? *deps.transport : nonet, lock, o);
    };
    auto r = run();
    if (!r) {
      err << "strata fetch: " << r.error().message() << "\n";
      exit_code = 1;
      return;
    }
    if (args->json) {
      out << nlohmann::json{{"downloaded", r->downloaded}, {"cached", r->cached}, {"bytes", r->bytes}}.dump(2) << "\n";
    } else {
      out << r->downloaded << " downloaded (" << str::human_bytes(r->bytes) << "), " << r->cached << " already cached\n";
    }
    exit_code = 0;
  });
  return sub;
}

}  // namespace strata::cli
