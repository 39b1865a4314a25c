#include "layer/cache/prewarm.hpp"

#include <map>

#include "layer/build/cached_overlay.hpp"
#include "layer/toolchain/toolchain_layer.hpp"
#include "util/sha.hpp"

namespace strata::layer {

const char* warm_state_name(WarmState s) {
  switch (s) {
    case WarmState::kBuilt: return "built";
    case WarmState::kWarm: return "warm";
    case WarmState::kWouldBuild: return "would-build";
    case WarmState::kNoOverlay: return "no-overlay";
    case WarmState::kFailed: return "failed";
    case WarmState::kNotStarted: return "not-started";
  }
  return "?";
}

bool PrewarmReport::failed() const {
  for (const auto& o : outcomes)
    if (o.state == WarmState::kFailed || o.state == WarmState::kNotStarted) return true;
  return false;
}

PrewarmReport prewarm(std::vector<PrewarmJob> jobs, const PrewarmOptions& options, BuildContext& ctx) {
  constexpr std::size_t kOtherShard = SIZE_MAX;  // a key another shard warms
  PrewarmReport report;
  // Plan every entry; one outcome per key, in the order keys first appear.
  std::vector<OverlayPlan> plans;
  std::map<std::string, std::size_t> by_key;
  for (auto& job : jobs) {
    if (!job.spec) {
      report.outcomes.push_back({.where = {job.where},
                                 .state = job.error.empty() ? WarmState::kNoOverlay : WarmState::kFailed,
                                 .error = job.error});
      plans.emplace_back();
      continue;
    }
    auto planned = plan_overlay(std::move(*job.spec));
    if (!planned) {
      report.outcomes.push_back({.where = {job.where}, .state = WarmState::kFailed, .error = planned.error().message()});
      plans.emplace_back();
      continue;
    }
    const std::string key = planned->key.hex;
    if (auto seen = by_key.find(key); seen != by_key.end()) {
      if (seen->second != kOtherShard) report.outcomes[seen->second].where.push_back(job.where);
      continue;
    }
    if (!options.shard.owns(key)) {
      by_key.emplace(key, kOtherShard);
      ++report.other_shards;
      continue;
    }
    by_key.emplace(key, report.outcomes.size());
    report.outcomes.push_back({.where = {job.where}, .key = key});
    plans.push_back(std::move(*planned));
  }
  // plans[i] belongs to outcomes[i] (a failed or no-overlay entry holds an empty one).
  bool stop = false;
  for (std::size_t i = 0; i < report.outcomes.size(); ++i) {
    PrewarmOutcome& o = report.outcomes[i];
    if (o.state == WarmState::kNoOverlay) continue;
    if (o.state == WarmState::kFailed) {
      stop = stop || !options.keep_going;
      continue;
    }
    if (stop) continue;  // kNotStarted
    const std::string tag = plans[i].key.tag();
    if (options.dry_run) {
      CachedOverlay cached = find_cached_overlay(*options.cache, tag, std::nullopt, ctx.clock);
      o.state = cached.found ? WarmState::kWarm : WarmState::kWouldBuild;
      if (cached.found) o.root = *cached.found;
      continue;
    }
    BuildRequest request{.plan = std::move(plans[i]), .dest = options.cache, .use_refresh = options.use_refresh};
    auto built = build(request, ctx);
    if (!built) {
      o.state = WarmState::kFailed;
      o.error = built.error().message();
      stop = !options.keep_going;
      continue;
    }
    o.state = built->cached ? WarmState::kWarm : WarmState::kBuilt;
    o.root = built->root;
  }
  return report;
}

bool ToolchainPrewarmReport::failed() const {
  for (const auto& o : outcomes)
    if (o.state == WarmState::kFailed || o.state == WarmState::kNotStarted) return true;
  return false;
}

ToolchainPrewarmReport prewarm_toolchains(std::vector<ToolchainJob> jobs, const PrewarmOptions& options,
                                          oci::http::Transport& http, const std::filesystem::path& home,
                                          bool offline, bool stop) {
  ToolchainPrewarmReport report;
  std::vector<std::size_t> job_of;  // outcome → its job
  std::map<std::string, std::size_t> by_id;
  constexpr std::size_t kOtherShard = SIZE_MAX;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto& q = jobs[j].request;
    const std::string want = q.want.exact ? *q.want.exact : q.want.text;
    const std::string id = sha256_hex(q.tool + "\n" + want + "\n" + q.source.describe() + "\n" + q.arch);
    if (auto seen = by_id.find(id); seen != by_id.end()) {
      if (seen->second != kOtherShard) report.outcomes[seen->second].where.push_back(jobs[j].where);
      continue;
    }
    if (!options.shard.owns(id)) {
      by_id.emplace(id, kOtherShard);
      ++report.other_shards;
      continue;
    }
    by_id.emplace(id, report.outcomes.size());
    report.outcomes.push_back(
        {.where = {jobs[j].where}, .id = id, .what = q.tool + " " + want + " from " + q.source.describe() + " (" + q.arch + ")"});
    job_of.push_back(j);
  }
  for (std::size_t i = 0; i < report.outcomes.size(); ++i) {
    ToolchainOutcome& o = report.outcomes[i];
    if (stop) continue;  // kNotStarted
    if (options.dry_run) {
      o.state = WarmState::kWouldBuild;
      continue;
    }
    toolchain::ToolchainRequest request{jobs[job_of[i]].request, home, offline};
    auto layer = toolchain::ensure_toolchain(http, request);
    if (!layer) {
      o.state = WarmState::kFailed;
      o.error = layer.error().message();
      stop = !options.keep_going;
      continue;
    }
    o.state = layer->cached ? WarmState::kWarm : WarmState::kBuilt;
    o.release = layer->release.version;
    o.key = layer->key;
    o.layer = layer->layer.digest;
  }
  return report;
}

}  // namespace strata::layer
