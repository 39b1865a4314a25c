// strata build: find or build `base + one layer of .debs` (issue 4). The
// pipeline is layer::build (layer/build/build.hpp); this maps the flags to a
// request and prints the result.
#include <iostream>

#include "cli/build_progress.hpp"
#include "cli/commands.hpp"
#include "cli/overlay_options.hpp"
#include "layer/build/build.hpp"
#include "oci/working_store.hpp"
#include "util/clock.hpp"
#include "util/strings.hpp"

namespace strata::cli {

namespace {

void print(const GlobalOptions& g, const OverlayFlags& f, const layer::BuildResult& r) {
  std::string dest = f.dest.substr(0, f.dest.find('@'));
  if (!g.json) {
    std::cout << dest << "@" << r.root.digest.str() << "\n";
    return;
  }
  nlohmann::ordered_json out;
  out["reference"] = dest + "@" + r.root.digest.str();
  out["digest"] = r.root.digest.str();
  out["key"] = r.key.hex;
  out["cached"] = r.cached;
  out["packages"] = nlohmann::ordered_json::array();
  for (const auto& b : r.platforms) {
    for (const auto& p : b.lock.packages) {
      out["packages"].push_back({{"name", p.name}, {"version", p.version}, {"architecture", p.architecture}});
    }
  }
  out["lock"] = !f.lock_out.empty() ? nlohmann::ordered_json(f.lock_out)
                : f.locks.empty()      ? nlohmann::ordered_json(nullptr)
                : f.locks.size() == 1  ? nlohmann::ordered_json(f.locks.front())
                                       : nlohmann::ordered_json(f.locks);
  if (!r.platforms.empty()) {
    std::size_t converted = 0, reused = 0;
    auto unreproduced = nlohmann::ordered_json::array();
    for (const auto& b : r.platforms) {
      converted += b.overlay.converted;
      reused += b.overlay.reused;
      // Several platforms: each entry names its platform, as the summary lines do.
      std::string prefix = r.platforms.size() > 1 ? b.platform.str() + ": " : "";
      for (const auto& u : b.overlay.unreproduced) unreproduced.push_back(prefix + u);
    }
    out["fragments_converted"] = converted;
    out["fragments_reused"] = reused;
    out["not_reproduced"] = std::move(unreproduced);
  }
  std::cout << oci::dump_json(out, 2) << "\n";
}

void run_build(const GlobalOptions& g, const OverlayFlags& f, oci::http::Transport& http) {
  oci::OpenedStore base;
  layer::OverlaySpec spec = overlay_spec(g, f, base);
  std::optional<std::int64_t> max_age;
  if (!f.max_age.empty()) {
    max_age = str::parse_duration(f.max_age);
    if (!max_age) throw Exit{kExitUsage, "--max-age " + f.max_age + ": not a duration (e.g. 30m, 12h, 7d)"};
  }
  layer::OverlayPlan plan = check(layer::plan_overlay(std::move(spec)));
  check_lock_bases(g, f, plan);

  auto dest_ref = check(oci::parse_image_ref(f.dest));
  auto dest = check(oci::WorkingStore::open(dest_ref, g.open_options()));
  std::filesystem::path home = g.open_options().home;
  layer::BaseFsCache base_fs(home / "basefs");
  BuildProgress progress(g, f.max_age);
  layer::BuildContext ctx{.http = http, .clock = system_clock(), .home = home,
                          .jobs = static_cast<unsigned>(g.jobs), .base_fs = &base_fs, .observer = &progress,
                          .offline = g.offline, .index_max_age = index_max_age(f.index_max_age)};
  layer::BuildRequest request{.plan = std::move(plan), .dest = &dest.store(),
                              .dest_tag = dest.tag(), .max_age = max_age,
                              .lock_out = f.lock_out,
                              .use_refresh = dest_ref.transport == oci::Transport::kDocker ? layer::kRegistryUseRefresh
                                                                                          : layer::kLayoutUseRefresh,
                              .attestations = !f.no_attestations};
  auto result = check(layer::build(request, ctx));
  check(dest.deliver(result.root.digest));
  print(g, f, result);
}

}  // namespace

void register_build(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto f = std::make_shared<OverlayFlags>();
  auto* cmd = add_command(
      app, "build", "Build (or find in the cache) the overlay base + one layer of Debian packages",
      "  strata build --base local:debian:12 build-essential libpq-dev --dest local:dev:1\n"
      "  strata build --base oci:/srv/img:base --lock dev.lock --dest oci:/srv/img:dev --compression zstd\n"
      "  strata build --base docker://registry.internal/base:1 git --platform linux/amd64,linux/arm64 --dest docker://registry.internal/dev:1\n"
      "  strata build --base docker-daemon:debian:12 build-essential --dest docker-daemon:dev:1\n");
  add_overlay_options(cmd, *f);
  cmd->add_option("--dest", f->dest, "Destination image reference")->required();
  cmd->add_flag("--no-attestations", f->no_attestations,
                "Attach no SBOM (SPDX, CycloneDX) or provenance to the built image (default: attached as referrers "
                "where the destination keeps them)");
  cmd->callback([&g, f, http] { run_build(g, *f, *http); });
}

}  // namespace strata::cli
