// `strata build --base REF PKG… --dest REF [--lock FILE] [--lock-out FILE]
// [--sources FILE]… [--platform P[,P]] [--compression gzip|zstd]
// [--max-age DURATION]` and `strata key` (same options, prints the cache key
// only). A thin shell: cache key and lookup, resolution (layer::Resolver) or
// a lock, fetching (layer::fetch_debs), then layer::build_overlay per
// platform and an index for several.
#pragma once

#include <memory>

#include "cli/app.hpp"
#include "oci/http/transport.hpp"

namespace strata::cli {

// Bump when the overlay's bytes change for the same inputs (part of the key).
inline constexpr int kOverlayRecipe = 2;
// Bump when a scratch root changes for the same inputs (scratch_effects).
inline constexpr int kScratchRecipe = 1;
inline constexpr std::string_view kScratchBase = "scratch";

void register_build(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http);
void register_key(CLI::App& app, GlobalOptions& g);

struct OverlayRequest {
  std::string base;
  std::vector<std::string> packages;
  std::string dest;
  std::string lock, lock_out;
  std::vector<std::string> sources;
  std::string platform;
  std::string compression = "gzip";
  std::string max_age;
  bool allow_unsigned = false;
  std::string variant = "minbase";  // --base scratch: essential | minbase
};

// Adds the options `build` and `key` share to `cmd`.
void add_overlay_options(CLI::App* cmd, OverlayRequest& r);

// The cache key (hex) and the canonical JSON it hashes.
struct OverlayKey {
  std::string hex;
  std::string canonical_json;
  std::vector<std::pair<std::string, std::string>> base_digests;  // platform → manifest digest
};
Result<OverlayKey> overlay_key(const GlobalOptions& g, const OverlayRequest& r);

}  // namespace strata::cli
