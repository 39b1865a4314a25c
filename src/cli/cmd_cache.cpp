// strata cache ls [--cache REF]
#include <iostream>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "layer/cache/home_caches.hpp"
#include "layer/cache/overlay_listing.hpp"
#include "oci/manifest.hpp"
#include "util/strings.hpp"

namespace strata::cli {
namespace {

struct CacheArgs {
  std::string cache;  // "" → the local store, $STRATA_HOME/images
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

}  // namespace

void register_cache(CLI::App& app, GlobalOptions& g) {
  auto* cache = add_command(app, "cache", "Inspect the overlay cache (local, or a cache repository)", "");
  cache->require_subcommand(1);
  auto args = std::make_shared<CacheArgs>();
  auto* ls = add_command(*cache, "ls",
                         "List the overlays a cache holds: keys, platforms, packages, size (compressed; unique: "
                         "bytes no other image there shares), last use and base; for the local cache also the "
                         "sizes of $STRATA_HOME's package, fragment and index caches",
                         "  strata cache ls\n  strata cache ls --cache docker://registry.internal/team/overlays --json\n");
  ls->add_option("--cache", args->cache, "Cache to list: oci:DIR or docker://HOST/REPO (default: the local store)");
  ls->callback([&g, args] { run_ls(g, *args); });
}

}  // namespace strata::cli
