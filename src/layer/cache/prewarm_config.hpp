// The pre-warm job's config (`strata cache prewarm --config FILE`, YAML):
//
//   cache: docker://registry.internal/team/overlays   # or oci:DIR: where overlay-<key> tags live
//   platforms: [linux/amd64, linux/arm64]             # optional, default the host's
//   sources: [/etc/apt/sources.list.d/debian.sources] # optional, default the host's
//   overlays:
//     - {base: docker://registry.internal/debian:12, packages: [build-essential, libpq-dev]}
//   repos:                                            # optional: scan + plan each, warm its overlay
//     - {path: ./services/api, base: docker://registry.internal/debian:12}
//   toolchains:                                       # optional: toolchain layers into $STRATA_HOME
//     - {tool: node, version: "20.18.0", source: npm}
//
// A toolchain entry is layer/toolchain/toolchain_entry.hpp's (tool,
// version, source, keyring, platforms: the config's by default).
// An entry may also name its own `platforms` and `sources` (an overlay
// entry also `compression`), and with `base: scratch` its `variant`
// (minbase, the default, or essential, as `strata build --variant`). Relative paths are relative to the config's directory.
// Unknown keys are errors naming the key and the entry; the file is
// bounded (1 MiB, 10,000 entries).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "layer/scratch/scratch_packages.hpp"
#include "layer/toolchain/toolchain_entry.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct PrewarmOverlaySpec {
  std::string where;  // "FILE: overlays[2]", for messages
  std::string base;
  std::vector<std::string> packages;
  std::vector<std::string> platforms;  // empty: the config's
  std::vector<std::string> sources;    // empty: the config's
  std::string compression;             // "": gzip
  ScratchVariant variant = ScratchVariant::kMinbase;  // base: scratch only
};

struct PrewarmRepoSpec {
  std::string where;
  std::filesystem::path path;
  std::string base;
  std::vector<std::string> platforms;  // empty: the config's
  std::vector<std::string> sources;    // empty: the config's
  ScratchVariant variant = ScratchVariant::kMinbase;  // base: scratch only
};

struct PrewarmConfig {
  std::string cache;
  std::vector<std::string> platforms;
  std::vector<std::string> sources;
  std::vector<PrewarmOverlaySpec> overlays;
  std::vector<PrewarmRepoSpec> repos;
  std::vector<toolchain::ToolchainEntry> toolchains;
};

Result<PrewarmConfig> parse_prewarm_config(std::string_view text, const std::string& file,
                                           const std::filesystem::path& relative_to);
Result<PrewarmConfig> load_prewarm_config(const std::filesystem::path& file);

}  // namespace strata::layer
