// strata cache ls | gc | prewarm
#include <iostream>
#include <list>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "cli/overlay_options.hpp"
#include "cli/toolchain_entries.hpp"
#include "contract/provision/prewarm_repo.hpp"
#include "layer/cache/gc.hpp"
#include "layer/cache/home_caches.hpp"
#include "layer/cache/overlay_listing.hpp"
#include "layer/cache/prewarm.hpp"
#include "layer/cache/prewarm_config.hpp"
#include "oci/layout_store.hpp"
#include "oci/manifest.hpp"
#include "oci/memory_store.hpp"
#include "util/strings.hpp"
#include "util/terminal_text.hpp"

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

// JSON null for what is not known (no time recorded, no text).
nlohmann::ordered_json opt_when(std::int64_t t) {
  return t == 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(when(t));
}
nlohmann::ordered_json opt_text(const std::string& s) {
  return s.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s);
}

nlohmann::ordered_json ignored_json(const std::vector<layer::IgnoredUse>& ignored) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& i : ignored) out.push_back({{"tag", i.tag}, {"reason", i.reason}});
  return out;
}

nlohmann::ordered_json entry_json(const layer::CachedOverlayEntry& e) {
  return {{"keys", e.keys},
          {"digest", e.root.digest.str()},
          {"media_type", e.root.media_type},
          {"platforms", e.platforms},
          {"base", {{"name", opt_text(e.base_name)},
                    {"digests", e.base_digests}}},
          {"packages", e.packages},
          {"lock_digest", opt_text(e.lock_digest)},
          {"size", e.size},
          {"unique_size", e.unique_size},
          {"created", opt_when(e.first_used)},
          {"last_used", opt_when(e.last_used)}};
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
    listing = check(layer::list_overlays(*opened.store, system_clock(), problems));
  }
  for (const auto& p : problems) log_info(g, "strata cache ls: skipped " + p);
  if (!listing.ignored_uses.empty()) log_info(g, "strata cache ls: " + layer::ignored_uses_summary(listing.ignored_uses));
  std::vector<layer::HomeCache> caches;
  if (local) caches = layer::home_caches(home);

  if (g.json) {
    nlohmann::ordered_json out;
    out["cache"] = ref;
    out["overlays"] = nlohmann::ordered_json::array();
    for (const auto& e : listing.overlays) out["overlays"].push_back(entry_json(e));
    out["overlay_bytes"] = listing.overlay_bytes;
    out["ignored_use_records"] = ignored_json(listing.ignored_uses);
    if (local) {
      out["local_caches"] = nlohmann::ordered_json::object();
      for (const auto& c : caches) out["local_caches"][c.name] = {{"bytes", c.bytes}, {"files", c.files}};
    }
    std::cout << oci::dump_json(out, 2) << "\n";
    return;
  }
  // Every key of an overlay (a resolving build answers for its request key,
  // first, and its content key), 12 hex digits each.
  auto short_keys = [](const layer::CachedOverlayEntry& e) {
    std::vector<std::string> shown;
    for (const auto& k : e.keys) shown.push_back(k.substr(0, 12));
    return str::join(shown, ",");
  };
  int key_width = 14;
  for (const auto& e : listing.overlays) key_width = std::max(key_width, static_cast<int>(short_keys(e).size()));
  std::printf("%-*s %-12s %-8s %9s %9s %-20s %s\n", key_width, "KEY", "PLATFORMS", "PACKAGES", "SIZE", "UNIQUE",
              "LAST USED", "BASE");
  // The platforms (an image config's) and the base name (a use record's)
  // are written by whoever shares the cache: terminal_safe.
  for (const auto& e : listing.overlays) {
    std::string base = !e.base_name.empty() ? e.base_name
                       : e.base_digests.empty() ? "-"
                                                : e.base_digests.front().substr(0, 19);
    std::printf("%-*s %-12s %-8zu %9s %9s %-20s %s\n", key_width, terminal_safe(short_keys(e)).c_str(),
                terminal_safe(str::join(e.platforms, ",")).c_str(), e.packages.size(), str::human_bytes(e.size).c_str(),
                str::human_bytes(e.unique_size).c_str(), when(e.last_used).c_str(), terminal_safe(base).c_str());
  }
  std::string summary = std::to_string(listing.overlays.size()) +
                        (listing.overlays.size() == 1 ? " overlay, " : " overlays, ") +
                        str::human_bytes(listing.overlay_bytes) + " in " + ref;
  for (const auto& c : caches) summary += "; " + c.name + " " + str::human_bytes(c.bytes);
  std::printf("%s\n", terminal_safe(summary).c_str());
}

struct GcArgs {
  std::string cache;  // "" → the local store
  std::string max_size, max_unused, min_age = "2h";
  bool dry_run = false;
};

layer::GcPolicy gc_policy(const GcArgs& a) {
  layer::GcPolicy p;
  if (!a.max_size.empty()) {
    p.max_size = str::parse_size(a.max_size);
    if (!p.max_size) throw Exit{kExitUsage, "--max-size " + a.max_size + ": not a size (bytes, or a number with K, M or G: 500M, 20G)"};
  }
  auto duration = [](const std::string& flag, const std::string& v) {
    auto d = str::parse_duration(v);
    if (!d || *d < 0) throw Exit{kExitUsage, flag + " " + v + ": not a duration (e.g. 90m, 36h, 7d, 0s)"};
    return *d;
  };
  if (!a.max_unused.empty()) p.max_unused = duration("--max-unused", a.max_unused);
  p.min_age = duration("--min-age", a.min_age);
  return p;
}

nlohmann::ordered_json gc_json(const layer::GcReport& r) {
  nlohmann::ordered_json out;
  out["cache"] = r.cache;
  out["dry_run"] = r.dry_run;
  out["overlays"] = nlohmann::ordered_json::array();
  for (const auto& o : r.overlays)
    out["overlays"].push_back({{"keys", o.keys}, {"digest", o.root.digest.str()},
                               {"last_used", opt_when(o.last_used)}, {"created", opt_when(o.created)},
                               {"size", o.size}, {"freed", o.freed},
                               {"reason", std::string(layer::gc_reason_name(o.reason))}});
  out["kept_overlays"] = r.kept_overlays;
  out["removed"] = nlohmann::ordered_json::array();
  for (const auto& m : r.removed)
    out["removed"].push_back({{"what", m.what}, {"ref", opt_text(m.ref)},
                              {"digest", m.digest}});
  if (!r.registry) {
    out["blobs"] = nlohmann::ordered_json::array();
    for (const auto& b : r.blobs) out["blobs"].push_back({{"digest", b.digest}, {"bytes", b.bytes}});
    out["blob_bytes"] = r.blob_bytes;
    out["sweep_deferred"] = r.sweep_deferred;
  }
  out["local_caches"] = nlohmann::ordered_json::array();
  for (const auto& h : r.home)
    out["local_caches"].push_back({{"cache", h.cache}, {"path", h.path}, {"bytes", h.bytes},
                                   {"modified", when(h.mtime)}, {"reason", std::string(layer::gc_reason_name(h.reason))}});
  out["local_cache_bytes"] = r.home_bytes;
  out["local_caches_deferred"] = r.home_deferred;
  out["bytes_before"] = r.bytes_before;
  out["bytes_after"] = r.bytes_after;
  out["cap_met"] = r.cap_met;
  out["registry_gc_needed"] = r.registry && !r.removed.empty();
  out["problems"] = r.problems;
  out["kept_all"] = opt_text(r.kept_all);
  out["ignored_use_records"] = ignored_json(r.ignored_uses);
  return out;
}

void run_gc(const GlobalOptions& g, const GcArgs& args) {
  layer::GcOptions options{.policy = gc_policy(args), .dry_run = args.dry_run, .home = std::nullopt};
  std::filesystem::path home = g.open_options().home;
  std::unique_ptr<oci::Store> store;
  oci::OpenedStore opened;
  if (args.cache.empty()) {
    options.home = home;
    // Opened read-only: a writer's open would take the lease gc needs whole.
    // (No store yet: an empty one, so the home caches are still collected.)
    if (!std::filesystem::exists(home / "images" / "oci-layout")) {
      (void)check(oci::LayoutStore::open(home / "images", oci::LayoutMode::kCreate));
    }
    store = check(oci::LayoutStore::open(home / "images", oci::LayoutMode::kReadOnly));
  } else {
    auto ref = check(oci::parse_image_ref(args.cache));
    if (ref.transport != oci::Transport::kOciLayout && ref.transport != oci::Transport::kDocker) {
      throw Exit{kExitUsage, "--cache " + args.cache + ": gc works on a layout (oci:DIR) or a registry repository "
                             "(docker://HOST/REPO)"};
    }
    opened = open_ref(g, args.cache, ref.transport == oci::Transport::kDocker ? oci::Access::kWrite : oci::Access::kRead);
  }
  oci::Store* target = store ? store.get() : opened.store.get();
  layer::GcReport r = check(layer::collect_garbage(*target, options, system_clock()));
  for (const auto& p : r.problems) log_info(g, "strata cache gc: skipped " + p);
  if (!r.ignored_uses.empty()) log_info(g, "strata cache gc: " + layer::ignored_uses_summary(r.ignored_uses));

  const char* verb = r.dry_run ? "would remove" : "removed";
  std::string summary = std::string(r.dry_run ? "dry run: " : "") + std::to_string(r.overlays.size()) +
                        (r.overlays.size() == 1 ? " overlay " : " overlays ") + (r.dry_run ? "to evict" : "evicted") +
                        ", " + std::to_string(r.kept_overlays) + " kept";
  if (!r.registry) {
    summary += "; " + std::to_string(r.blobs.size()) + " blobs (" + str::human_bytes(r.blob_bytes) + ") " +
               (r.dry_run ? "to remove" : "removed");
    if (r.sweep_deferred) summary += "; blobs left for the next gc: a writer holds the layout";
    else if (!r.kept_all.empty()) summary += "; every blob kept: " + r.kept_all;
  } else if (!r.kept_all.empty()) {
    summary += "; nothing deleted: " + r.kept_all;
  } else if (!r.removed.empty()) {
    summary += "; " + std::to_string(r.removed.size()) + " manifests " + (r.dry_run ? "to delete" : "deleted") +
               " by digest; the registry frees their blobs when its own garbage collection runs";
  }
  if (options.home) {
    summary += "; local caches " + std::to_string(r.home.size()) + " items (" + str::human_bytes(r.home_bytes) + ")";
    if (r.home_deferred) summary += ", left alone while a build runs";
  }
  summary += "; " + str::human_bytes(r.bytes_before) + " -> " + str::human_bytes(r.bytes_after) + " in " + r.cache;
  if (!r.cap_met) summary += " (over --max-size: the rest is younger than --min-age or used by other images)";

  if (g.json) {
    std::cout << oci::dump_json(gc_json(r), 2) << "\n";
  } else {
    // Tags and file names come from index.json and the disk: terminal_safe.
    for (const auto& o : r.overlays)
      std::printf("%s overlay %s  last used %s  %s freed  (%s)\n", verb, terminal_safe(o.keys.front().substr(0, 12)).c_str(),
                  when(o.last_used).c_str(), str::human_bytes(o.freed).c_str(),
                  std::string(layer::gc_reason_name(o.reason)).c_str());
    for (const auto& m : r.removed)
      std::printf("%s %s %s%s\n", verb, m.what.c_str(), terminal_safe(m.digest).c_str(),
                  m.ref.empty() ? "" : (" " + terminal_safe(m.ref)).c_str());
    for (const auto& b : r.blobs)
      std::printf("%s blob %s %s\n", verb, terminal_safe(b.digest).c_str(), str::human_bytes(b.bytes).c_str());
    for (const auto& h : r.home)
      std::printf("%s %s %s %s\n", verb, h.cache.c_str(), terminal_safe(h.path).c_str(), str::human_bytes(h.bytes).c_str());
  }
  log_info(g, "strata cache gc: " + summary);
}

layer::Shard shard(const PrewarmArgs& args) {
  if (!args.shard.empty()) return check(layer::parse_shard(args.shard));
  auto env = check(layer::shard_from_env(std::getenv("JOB_COMPLETION_INDEX"), std::getenv("JOB_COMPLETIONS")));
  return env.value_or(layer::Shard{});
}

void run_prewarm(const GlobalOptions& g, const PrewarmArgs& args, oci::http::Transport& http) {
  layer::PrewarmConfig config = check(layer::load_prewarm_config(args.config));
  layer::Shard share = shard(args);
  auto cache_ref = check(oci::parse_image_ref(config.cache));
  oci::OpenedStore cache;
  if (!args.dry_run) {
    cache = open_ref(g, config.cache, oci::Access::kWrite);
  } else if (auto opened = oci::open_store(cache_ref, oci::Access::kRead, g.open_options())) {
    cache = std::move(*opened);
  } else if (opened.error().is(ErrorCode::kNotFound)) {
    // A dry run writes nothing, so a cache not created yet is an empty one:
    // every overlay would be built.
    log_info(g, "strata cache prewarm: " + config.cache + " does not exist yet; a run creates it");
    cache.store = std::make_unique<oci::MemoryStore>(config.cache);
  } else {
    check(std::move(opened));
  }
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
    f.variant = std::string(layer::scratch_variant_name(o.variant));
    jobs.push_back({.where = o.where, .spec = overlay_spec(g, f, bases.emplace_back())});
  }
  // Each repository and platform, planned as `strata provision` plans it.
  DecisionCaches caches(g);
  auto pc = caches.plan_context(g, http);
  for (auto& job : check(contract::provision::prewarm_repo_jobs(
           config, {.open = g.open_options(), .index_max_age = index_max_age(kDefaultIndexMaxAge)}, bases, pc)))
    jobs.push_back(std::move(job));
  // Each toolchain entry and platform, as `strata toolchain install` would ensure it.
  std::vector<layer::ToolchainJob> toolchain_jobs;
  for (auto& e : check(toolchain_requests(config.toolchains, config.platforms)))
    toolchain_jobs.push_back({std::move(e.where), std::move(e.request)});
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
  layer::ToolchainPrewarmReport toolchains =
      layer::prewarm_toolchains(std::move(toolchain_jobs), options, http, home, g.offline,
                                report.failed() && !args.keep_going);

  std::map<std::string, std::size_t> counts;
  for (const auto& o : report.outcomes) ++counts[layer::warm_state_name(o.state)];
  std::string summary = std::to_string(report.outcomes.size()) + " keys in shard " + std::to_string(share.index) +
                        "/" + std::to_string(share.count);
  for (const auto& [state, n] : counts) summary += ", " + std::to_string(n) + " " + state;
  if (report.other_shards) summary += " (" + std::to_string(report.other_shards) + " keys left to other shards)";
  if (!toolchains.outcomes.empty() || toolchains.other_shards) {
    std::map<std::string, std::size_t> tc_counts;
    for (const auto& o : toolchains.outcomes) ++tc_counts[layer::warm_state_name(o.state)];
    summary += "; " + std::to_string(toolchains.outcomes.size()) + " toolchains";
    for (const auto& [state, n] : tc_counts) summary += ", " + std::to_string(n) + " " + state;
    if (toolchains.other_shards)
      summary += " (" + std::to_string(toolchains.other_shards) + " toolchains left to other shards)";
  }
  if (g.json) {
    nlohmann::ordered_json out;
    out["cache"] = config.cache;
    out["shard"] = std::to_string(share.index) + "/" + std::to_string(share.count);
    out["dry_run"] = args.dry_run;
    out["overlays"] = nlohmann::ordered_json::array();
    for (const auto& o : report.outcomes) {
      nlohmann::ordered_json e{{"entries", o.where}, {"key", opt_text(o.key)},
                               {"state", layer::warm_state_name(o.state)}};
      if (o.state == layer::WarmState::kBuilt || o.state == layer::WarmState::kWarm) e["digest"] = o.root.digest.str();
      if (!o.error.empty()) e["error"] = o.error;
      out["overlays"].push_back(std::move(e));
    }
    out["other_shards"] = report.other_shards;
    out["toolchains"] = nlohmann::ordered_json::array();
    for (const auto& o : toolchains.outcomes) {
      nlohmann::ordered_json e{{"entries", o.where}, {"toolchain", o.what}, {"state", layer::warm_state_name(o.state)}};
      if (!o.release.empty()) e["release"] = o.release;
      if (!o.key.empty()) e["key"] = o.key;
      if (o.state == layer::WarmState::kBuilt || o.state == layer::WarmState::kWarm) e["layer"] = o.layer.str();
      if (!o.error.empty()) e["error"] = o.error;
      out["toolchains"].push_back(std::move(e));
    }
    out["toolchains_other_shards"] = toolchains.other_shards;
    std::cout << oci::dump_json(out, 2) << "\n";
  } else {
    for (const auto& o : report.outcomes) {
      std::string line = std::string(layer::warm_state_name(o.state)) + "  " +
                         (o.key.empty() ? std::string(12, '-') : o.key.substr(0, 12)) + "  " + str::join(o.where, "; ");
      if (!o.error.empty()) line += ": " + o.error;
      std::cout << terminal_safe(line) << "\n";
    }
    for (const auto& o : toolchains.outcomes) {
      std::string line = std::string(layer::warm_state_name(o.state)) + "  " +
                         (o.key.empty() ? std::string(12, '-') : o.key.substr(0, 12)) + "  " +
                         str::join(o.where, "; ") + " (" + o.what +
                         (o.release.empty() ? "" : ": " + o.release) + ")";
      if (!o.error.empty()) line += ": " + o.error;
      std::cout << terminal_safe(line) << "\n";
    }
    std::cout << summary << "\n";
  }
  // Why each key failed, on stderr whatever -q and --json say: -q drops
  // progress, never the reason for exit 1 (standard output may be a file
  // or a JSON consumer nobody reads).
  std::cout.flush();
  for (const auto& o : report.outcomes)
    if (o.state == layer::WarmState::kFailed)
      std::cerr << terminal_safe("strata cache prewarm: failed " + str::join(o.where, "; ") +
                                 (o.key.empty() ? "" : " (key " + o.key.substr(0, 12) + ")") + ": " + o.error)
                << "\n";
  for (const auto& o : toolchains.outcomes)
    if (o.state == layer::WarmState::kFailed)
      std::cerr << terminal_safe("strata cache prewarm: failed " + str::join(o.where, "; ") + " (" + o.what +
                                 "): " + o.error)
                << "\n";
  if (report.failed() || toolchains.failed()) throw Exit{kExitFailure, "strata cache prewarm: " + summary};
}

}  // namespace

void register_cache(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto* cache = add_command(app, "cache", "List, collect and pre-warm the overlay cache (local, or a cache repository)", "");
  cache->require_subcommand(1);
  auto args = std::make_shared<CacheArgs>();
  auto* ls = add_command(*cache, "ls",
                         "List the overlays a cache holds: keys, platforms, packages, size (compressed; unique: "
                         "bytes no other image there shares), last use and base; for the local cache also the "
                         "sizes of $STRATA_HOME's package, fragment and index caches",
                         "  strata cache ls\n  strata cache ls --cache docker://registry.internal/team/overlays --json\n");
  ls->add_option("--cache", args->cache, "Cache to list: oci:DIR or docker://HOST/REPO (default: the local store)");
  ls->callback([&g, args] { run_ls(g, *args); });

  auto ga = std::make_shared<GcArgs>();
  auto* gc = add_command(
      *cache, "gc",
      "Evict overlays least recently used first: --max-unused drops what was not used for that long, --max-size "
      "evicts until what stays fits (with the local cache, $STRATA_HOME's debs/, fragments/ and indexes/ count "
      "too), --min-age protects anything younger; then removes every blob a layout no longer names. In a "
      "registry, manifests are deleted by digest and the registry's own garbage collection frees the blobs",
      "  strata cache gc --max-size 20G\n  strata cache gc --max-unused 30d --dry-run\n"
      "  strata cache gc --cache docker://registry.internal/team/overlays --max-unused 14d --json\n");
  gc->add_option("--cache", ga->cache, "Cache to collect: oci:DIR or docker://HOST/REPO (default: the local store)");
  gc->add_option("--max-size", ga->max_size, "Evict until what stays fits in SIZE (bytes, or N with K, M, G)");
  gc->add_option("--max-unused", ga->max_unused, "Evict what was not used for DURATION (90m, 36h, 7d)");
  gc->add_option("--min-age", ga->min_age, "Never remove anything younger than DURATION (default 2h; 0s: no protection)");
  gc->add_flag("--dry-run", ga->dry_run, "Say exactly what would go and how many bytes; remove nothing");
  gc->callback([&g, ga] { run_gc(g, *ga); });

  auto pw = std::make_shared<PrewarmArgs>();
  auto* prewarm = add_command(
      *cache, "prewarm",
      "Build every overlay a config names that its cache lacks (deduplicated by key; a hit costs one lookup), "
      "and every toolchain layer it names into $STRATA_HOME. "
      "--shard K/N takes a deterministic share of the keys, by default from JOB_COMPLETION_INDEX/JOB_COMPLETIONS "
      "(a Kubernetes Indexed Job)",
      "  strata cache prewarm --config prewarm.yaml\n  strata cache prewarm --config prewarm.yaml --shard 1/4 --json\n");
  prewarm->add_option("--config", pw->config, "Pre-warm config (YAML: cache, platforms, sources, overlays, repos, toolchains)")
      ->required()
      ->check(CLI::ExistingFile);
  prewarm->add_option("--shard", pw->shard, "This job's share K/N of the keys (0-based)");
  prewarm->add_flag("--keep-going", pw->keep_going, "Go on after a failed overlay (the exit is still 1)");
  prewarm->add_flag("--dry-run", pw->dry_run, "Say which overlays are warm and which would be built; build nothing");
  prewarm->callback([&g, pw, http] { run_prewarm(g, *pw, *http); });
}

}  // namespace strata::cli
