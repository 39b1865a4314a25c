// Pre-warming a cache (`strata cache prewarm`): every overlay a config asks
// for, deduplicated by key, this shard's share of the keys, built into the
// cache only when missing (a hit costs one manifest lookup). Each key ends
// built, already warm, failed — or, with dry_run, warm or would-build; when
// one fails and keep_going is off, the keys after it are not started. A
// repository whose plan needs no overlay is reported as no-overlay.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "layer/build/build.hpp"
#include "layer/cache/shard.hpp"
#include "layer/toolchain/release.hpp"

namespace strata::layer {

struct PrewarmJob {
  std::string where;                 // the config entry, for reports
  std::optional<OverlaySpec> spec;   // its base store opened by the caller; none: nothing to build
  std::string error{};               // why the entry could not be planned (then it fails)
};

enum class WarmState { kBuilt, kWarm, kWouldBuild, kNoOverlay, kFailed, kNotStarted };
const char* warm_state_name(WarmState s);

struct PrewarmOutcome {
  std::vector<std::string> where{};  // every entry that asked for this key
  std::string key{};                 // hex; "" when the entry could not be planned
  WarmState state = WarmState::kNotStarted;
  oci::Descriptor root{};            // built or found
  std::string error{};
};

struct PrewarmOptions {
  oci::Store* cache = nullptr;  // REQUIRED: where overlay-<key> tags live
  Shard shard{};
  bool dry_run = false;
  bool keep_going = false;
  std::int64_t use_refresh = kLayoutUseRefresh;
};

struct PrewarmReport {
  std::vector<PrewarmOutcome> outcomes;  // this shard's keys, in config order
  std::size_t other_shards = 0;          // keys left to the other shards
  bool failed() const;
};

PrewarmReport prewarm(std::vector<PrewarmJob> jobs, const PrewarmOptions& options, BuildContext& ctx);

// Toolchain layers (a config's `toolchains:`): each entry and platform is a
// job, ensured into $STRATA_HOME/toolchains as `strata toolchain install`
// would (built, or warm when its layer was cached). Sharded by the job's id
// (sha256 of tool, version text, source and arch: known without the
// network), identical jobs once. A dry run resolves nothing: would-build.
struct ToolchainJob {
  std::string where;
  toolchain::ResolveRequest request;
};

struct ToolchainOutcome {
  std::vector<std::string> where{};
  std::string id{};       // hex: what the shard is chosen by
  std::string what{};     // "node 20 from https://nodejs.org/dist (amd64)"
  WarmState state = WarmState::kNotStarted;
  std::string release{};  // the version ensured
  std::string key{};      // the toolchain layer's key
  oci::Digest layer = oci::Digest::sha256_of("");
  std::string error{};
};

struct ToolchainPrewarmReport {
  std::vector<ToolchainOutcome> outcomes;  // this shard's jobs, in config order
  std::size_t other_shards = 0;
  bool failed() const;
};

// `offline`: only what the toolchain cache holds. `stop`: an earlier failure without keep_going; every job is then not started.
ToolchainPrewarmReport prewarm_toolchains(std::vector<ToolchainJob> jobs, const PrewarmOptions& options,
                                          oci::http::Transport& http, const std::filesystem::path& home,
                                          bool offline = false, bool stop = false);

}  // namespace strata::layer
