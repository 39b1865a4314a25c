// Mirror jobs: many images copied in one run (registry ↔ registry, registry →
// layout/archive for air gaps, and back), described by a YAML file:
//
//   parallel: 2                      # images copied at once (default 2)
//   images:
//     - source: docker://registry.a/team/app:v1
//       destination: docker://registry.b/team/app:v1
//       platform: linux/arm64        # optional: one platform of an index
//     - source: docker://registry.a/team/base:12
//       destination: oci:/srv/mirror:base-12
//       all: true                    # optional: every platform of an index
//
// Every copy runs in one CopySession (blobs de-duplicated in flight across
// images) and every store is opened with one shared registry client cache.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oci/copy.hpp"
#include "oci/open_store.hpp"
#include "oci/platform.hpp"

namespace strata::oci {

struct MirrorEntry {
  std::string source;
  std::string destination;
  std::optional<Platform> platform;
  bool all = false;
};

struct MirrorConfig {
  std::vector<MirrorEntry> images;
  int parallel = 2;
};

// Parses the YAML text; `what` names it in errors (the file path).
Result<MirrorConfig> parse_mirror_config(std::string_view yaml, const std::string& what);
Result<MirrorConfig> load_mirror_config(const std::filesystem::path& path);

struct MirrorOutcome {
  const MirrorEntry* entry = nullptr;
  Result<CopyResult> result = fail(ErrorCode::kCancelled, "not run");
};

struct MirrorOptions {
  bool dry_run = false;     // resolve the sources and report what would be copied
  bool keep_going = false;  // continue past failures (else stop starting new copies)
  CopyOptions copy;         // jobs, referrers; `all`/`platform` come from each entry
  OpenOptions open;         // should carry a shared registry client cache
  // The tag to write at a destination (nullopt: by digest only).
  std::function<std::optional<std::string>(const ImageRef&, const std::string& store_ref)> destination_tag;
  // Called once per image with its final outcome, serialised: as each
  // registry copy finishes, and for images copied into a layout or archive
  // once that destination is closed (an archive is written then).
  std::function<void(const MirrorOutcome&)> on_done;
};

// Runs (or, with dry_run, resolves) every entry, `config.parallel` at a time.
// Outcomes come back in config order; entries never started (a failure
// without keep_going) carry kCancelled.
std::vector<MirrorOutcome> run_mirror(const MirrorConfig& config, const MirrorOptions& options);

}  // namespace strata::oci
