// strata cache ls [--cache REF] | cache prewarm --config FILE [--shard K/N]
#include <iostream>
#include <list>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "cli/overlay_options.hpp"
#include "contract/provision/prewarm_repo.hpp"
#include "layer/cache/home_caches.hpp"
#include "layer/cache/overlay_listing.hpp"
#include "layer/cache/prewarm.hpp"
#include "layer/cache/prewarm_config.hpp"
#include "oci/manifest.hpp"
#include "util/strings.hpp"

namespace strata::cli {
namespace {

struct CacheArgs {
  std::string cache;  // "" → the local store, $STRATA_HOME/images
};

struct PrewarmArgs {
  std::string config;
  std::string shard;  // "": JOB_COMPLETION_INDEX/JOB_COMPLETIONS, else 0/1
  bool keep_going = false;
  bool dry_run = false;
};

std::string when(std::int64_t t) { return t == 0 ? "-" : str::rfc3339(t); }

nlohmann::ordered_json entry_json(const layer::CachedOverlayEntry& e) {
  return {{"keys", e.keys},
          {"digest", e.root.digest.str()},
          {"media_type", e.root.media_type},
          {"platforms", e.platforms},
          {"base", {{"name", e.base_name.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.base_name)},
                    {"digests", e.base_digests}}},
          {"packages", e.packages},
          {"lock_digest", e.lock_digest.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(e.lock_digest)},
          {"size", e.size},
          {"unique_size", e.unique_size},
          {"created", e.first_used == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(when(e.first_used))},
          {"last_used", e.last_used == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(when(e.last_used))}};
}

void run_ls(const GlobalOptions& g, const CacheArgs& args) {
  const bool local = args.cache.empty();
  std::filesystem::path home = g.open_options().home;
  std::string ref = local ? "oci:" + (home / "images").string() : args.cache;
  std::vector<std::string> problems;
  layer::CacheListing listing;
  // No local store yet: nothing has been built here, an empty cache.
  if (!local || std::filesystem::exists(home / "images" / "oci-layout")) {
    auto opened = open_ref(g, ref, oci::Access::kRead);
    listing = check(layer::list_overlays(*opened.store, problems));
  }
  for (const auto& p : problems) log_info(g, "strata cache ls: skipped " + p);
  std::vector<layer::HomeCache> caches;
  if (local) caches = layer::home_caches(home);

  if (g.json) {
    nlohmann::ordered_json out;
    out["cache"] = ref;
    out["overlays"] = nlohmann::ordered_json::array();
    for (const auto& e : listing.overlays) out["overlays"].push_back(entry_json(e));
    out["overlay_bytes"] = listing.overlay_bytes;
    if (local) {
      out["local_caches"] = nlohmann::ordered_json::object();
      for (const auto& c : caches) out["local_caches"][c.name] = {{"bytes", c.bytes}, {"files", c.files}};
    }
    std::cout << oci::dump_json(out, 2) << "\n";
    return;
  }
  std::printf("%-14s %-12s %-8s %9s %9s %-20s %s\n", "KEY", "PLATFORMS", "PACKAGES", "SIZE", "UNIQUE", "LAST USED",
              "BASE");
  for (const auto& e : listing.overlays) {
    std::string base = !e.base_name.empty() ? e.base_name
                       : e.base_digests.empty() ? "-"
                                                : e.base_digests.front().substr(0, 19);
    std::printf("%-14s %-12s %-8zu %9s %9s %-20s %s\n", e.keys.front().substr(0, 12).c_str(),
                str::join(e.platforms, ",").c_str(), e.packages.size(), str::human_bytes(e.size).c_str(),
                str::human_bytes(e.unique_size).c_str(), when(e.last_used).c_str(), base.c_str());
  }
  std::string summary = std::to_string(listing.overlays.size()) +
                        (listing.overlays.size() == 1 ? " overlay, " : " overlays, ") +
                        str::human_bytes(listing.overlay_bytes) + " in " + ref;
  for (const auto& c : caches) summary += "; " + c.name + " " + str::human_bytes(c.bytes);
  std::printf("%s\n", summary.c_str());
}

layer::Shard shard(const PrewarmArgs& args) {
  if (!args.shard.empty()) return check(layer::parse_shard(args.shard));
  auto env = check(layer::shard_from_env(std::getenv("JOB_COMPLETION_INDEX"), std::getenv("JOB_COMPLETIONS")));
  return env.value_or(layer::Shard{});
}

// One job per repository and platform, planned as `strata provision DIR
// --base B --platform P` plans it (the key provision looks up).
void add_repo_jobs(const GlobalOptions& g, const layer::PrewarmConfig& config, oci::http::Transport& http,
                   std::list<oci::OpenedStore>& bases, std::vector<layer::PrewarmJob>& jobs) {
  auto facts = facts_cache(g);
  contract::route::PlanContext pc{.http = http, .clock = system_clock(), .home = g.open_options().home, .facts = &facts};
  for (const auto& r : config.repos) {
    std::vector<std::string> platforms = r.platforms.empty() ? config.platforms : r.platforms;
    if (platforms.empty()) platforms.emplace_back();  // this machine's
    for (const auto& p : platforms) {
      DecisionFlags f;
      f.repo = r.path.string();
      f.image = r.base;
      f.sources = r.sources.empty() ? config.sources : r.sources;
      f.platform = p;
      std::string where = r.where + (platforms.size() > 1 ? " (" + p + ")" : "");
      auto request = plan_request(g, f, bases.emplace_back());
      jobs.push_back(contract::provision::prewarm_job(std::move(where), request, pc));
    }
  }
}

void run_prewarm(const GlobalOptions& g, const PrewarmArgs& args, oci::http::Transport& http) {
  layer::PrewarmConfig config = check(layer::load_prewarm_config(args.config));
  layer::Shard share = shard(args);
  auto cache_ref = check(oci::parse_image_ref(config.cache));
  auto cache = open_ref(g, config.cache, args.dry_run ? oci::Access::kRead : oci::Access::kWrite);
  // Each entry's spec as `strata build` makes it from the same options; the
  // base stores stay open (and in place) until the jobs are done.
  std::list<oci::OpenedStore> bases;
  std::vector<layer::PrewarmJob> jobs;
  for (const auto& o : config.overlays) {
    OverlayFlags f;
    f.base = o.base;
    f.packages = o.packages;
    f.sources = o.sources.empty() ? config.sources : o.sources;
    f.platform = str::join(o.platforms.empty() ? config.platforms : o.platforms, ",");
    f.compression = o.compression.empty() ? "gzip" : o.compression;
    jobs.push_back({.where = o.where, .spec = overlay_spec(g, f, bases.emplace_back())});
  }
  add_repo_jobs(g, config, http, bases, jobs);
  std::filesystem::path home = g.open_options().home;
  layer::BaseFsCache base_fs(home / "basefs");
  layer::BuildContext ctx{.http = http, .clock = system_clock(), .home = home, .jobs = static_cast<unsigned>(g.jobs),
                          .base_fs = &base_fs};
  layer::PrewarmOptions options{.cache = cache.store.get(), .shard = share, .dry_run = args.dry_run,
                                .keep_going = args.keep_going,
                                .use_refresh = cache_ref.transport == oci::Transport::kDocker
                                                   ? layer::kRegistryUseRefresh
                                                   : layer::kLayoutUseRefresh};
  layer::PrewarmReport report = layer::prewarm(std::move(jobs), options, ctx);
  check(cache.store->close());

  std::map<std::string, std::size_t> counts;
  for (const auto& o : report.outcomes) ++counts[layer::warm_state_name(o.state)];
  std::string summary = std::to_string(report.outcomes.size()) + " keys in shard " + std::to_string(share.index) +
                        "/" + std::to_string(share.count);
  for (const auto& [state, n] : counts) summary += ", " + std::to_string(n) + " " + state;
  if (report.other_shards) summary += " (" + std::to_string(report.other_shards) + " keys left to other shards)";
  if (g.json) {
    nlohmann::ordered_json out;
    out["cache"] = config.cache;
    out["shard"] = std::to_string(share.index) + "/" + std::to_string(share.count);
    out["dry_run"] = args.dry_run;
    out["overlays"] = nlohmann::ordered_json::array();
    for (const auto& o : report.outcomes) {
      nlohmann::ordered_json e{{"entries", o.where}, {"key", o.key.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(o.key)},
                               {"state", layer::warm_state_name(o.state)}};
      if (o.state == layer::WarmState::kBuilt || o.state == layer::WarmState::kWarm) e["digest"] = o.root.digest.str();
      if (!o.error.empty()) e["error"] = o.error;
      out["overlays"].push_back(std::move(e));
    }
    out["other_shards"] = report.other_shards;
    std::cout << oci::dump_json(out, 2) << "\n";
  } else {
    for (const auto& o : report.outcomes) {
      std::string line = std::string(layer::warm_state_name(o.state)) + "  " +
                         (o.key.empty() ? std::string(12, '-') : o.key.substr(0, 12)) + "  " + str::join(o.where, "; ");
      if (!o.error.empty()) line += ": " + o.error;
      std::cout << line << "\n";
    }
    std::cout << summary << "\n";
  }
  if (report.failed()) throw Exit{kExitFailure, "strata cache prewarm: " + summary};
}

}  // namespace

void register_cache(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto* cache = add_command(app, "cache", "List and pre-warm the overlay cache (local, or a cache repository)", "");
  cache->require_subcommand(1);
  auto args = std::make_shared<CacheArgs>();
  auto* ls = add_command(*cache, "ls",
                         "List the overlays a cache holds: keys, platforms, packages, size (compressed; unique: "
                         "bytes no other image there shares), last use and base; for the local cache also the "
                         "sizes of $STRATA_HOME's package, fragment and index caches",
                         "  strata cache ls\n  strata cache ls --cache docker://registry.internal/team/overlays --json\n");
  ls->add_option("--cache", args->cache, "Cache to list: oci:DIR or docker://HOST/REPO (default: the local store)");
  ls->callback([&g, args] { run_ls(g, *args); });

  auto pw = std::make_shared<PrewarmArgs>();
  auto* prewarm = add_command(
      *cache, "prewarm",
      "Build every overlay a config names that its cache lacks (deduplicated by key; a hit costs one lookup). "
      "--shard K/N takes a deterministic share of the keys, by default from JOB_COMPLETION_INDEX/JOB_COMPLETIONS "
      "(a Kubernetes Indexed Job)",
      "  strata cache prewarm --config prewarm.yaml\n  strata cache prewarm --config prewarm.yaml --shard 1/4 --json\n");
  prewarm->add_option("--config", pw->config, "Pre-warm config (YAML: cache, platforms, sources, overlays, repos)")
      ->required()
      ->check(CLI::ExistingFile);
  prewarm->add_option("--shard", pw->shard, "This job's share K/N of the keys (0-based)");
  prewarm->add_flag("--keep-going", pw->keep_going, "Go on after a failed overlay (the exit is still 1)");
  prewarm->add_flag("--dry-run", pw->dry_run, "Say which overlays are warm and which would be built; build nothing");
  prewarm->callback([&g, pw, http] { run_prewarm(g, *pw, *http); });
}

}  // namespace strata::cli
