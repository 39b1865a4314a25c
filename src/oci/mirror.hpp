// Mirror jobs: many images copied in one run (registry ↔ registry, registry →
// layout/archive for air gaps, and back), described by a YAML file:
//
//   parallel: 2                      # images copied at once (default 2)
//   registries:                      # optional, by registry host
//     reg.a.example:5000:
//       tls-verify: false            # plain HTTP allowed, TLS not verified
//       auth-file: auth.json         # the only credentials file for this host
//       cert-dir: certs.d            # certs.d-style roots searched first
//       retries: 3                   # tries of a transient failure
//       timeout: 30                  # seconds to connect / without progress
//   images:
//     - source: docker://registry.a/team/app:v1      # or @sha256:… (pinned)
//       destination: docker://registry.b/team/app:v1
//       platform: linux/arm64        # optional: one platform of an index
//     - source: docker://registry.a/team/base:12
//       destination: oci:/srv/mirror:base-12
//       all: true                    # optional: every platform of an index
//   repositories:                    # every tag of a repository, filtered
//     - source: docker://registry.a/team/app        # no tag, no digest
//       destination: docker://registry.b/mirror     # → registry.b/mirror/team/app:TAG
//       tags: {include: ['^v1\.'], exclude: ['-rc'], semver: '>=1.2 <2', newest: 3}
//     - source: docker://registry.a/team/tool
//       destination: oci:/srv/mirror                # tagged TAG (tag-prefix: P → PTAG)
//       tag-prefix: tool-
//
// `include`/`exclude` are RE2 patterns (tag_filter.hpp); one RE2 refuses is a
// config error naming the file, the entry and RE2's message. A tag the
// registry lists that is not a valid tag is skipped (on_skipped_tags).
//
// Paths in `registries` are relative to the config file's directory. Every
// copy runs in one CopySession (blobs de-duplicated in flight across images,
// and mounted between repositories of one registry), every store is opened
// once per run, and every registry client is shared.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oci/copy.hpp"
#include "oci/open_store.hpp"
#include "oci/platform.hpp"
#include "oci/registry/host_settings.hpp"
#include "oci/tag_filter.hpp"

namespace strata::oci {

struct MirrorEntry {
  std::string source;
  std::string destination;
  std::optional<Platform> platform;
  bool all = false;
  std::string where;  // where the config names it: "m.yaml: images[2]", "m.yaml: repositories[0] tag v1"
};

// Every tag of a registry repository that `tags` keeps.
struct MirrorRepository {
  std::string source;       // docker://HOST/REPO: no tag, no digest
  // docker://HOST[/PREFIX]: each tag goes to HOST/PREFIX/REPO:TAG; or a
  // layout or archive (oci:DIR, oci-archive:FILE) tagged tag_prefix + TAG.
  std::string destination;
  std::string tag_prefix;   // layouts and archives only
  TagFilter tags;
  std::optional<Platform> platform;
  bool all = false;
  std::string where;        // "m.yaml: repositories[0]"
};

struct MirrorConfig {
  std::vector<MirrorEntry> images;
  std::vector<MirrorRepository> repositories;
  registry::HostSettingsMap registries;
  int parallel = 2;
};

// Parses the YAML text; `what` names it in errors (the file path), and
// relative paths in it are taken from `base_dir`.
Result<MirrorConfig> parse_mirror_config(std::string_view yaml, const std::string& what,
                                         const std::filesystem::path& base_dir = {});
Result<MirrorConfig> load_mirror_config(const std::filesystem::path& path);

// The images a repository entry stands for: one list of its tags, filtered,
// each with its destination reference. Listed tags that break the tag
// grammar (the registry's bytes, never matched against a pattern) are left
// out and appended to `skipped` when given.
Result<std::vector<MirrorEntry>> expand_repository(const MirrorRepository& repo, const OpenOptions& open,
                                                   std::vector<std::string>* skipped = nullptr);

// `open` with the config's per-registry settings joined to it, in a fresh
// registry client cache (unchanged when the config names no registry).
OpenOptions with_config_registries(const MirrorConfig& config, OpenOptions open);

enum class MirrorStatus {
  kCopied,      // moved (some or all of its blobs)
  kPresent,     // the destination already had it under that name
  kWouldCopy,   // dry run: the destination lacks it
  kFailed,
  kNotStarted,  // a failure without keep_going stopped the run first
};
std::string_view mirror_status_name(MirrorStatus s);  // "copied", "present", "would-copy", "failed", "not-started"

struct MirrorOutcome {
  MirrorEntry entry;
  Result<CopyResult> result = fail(ErrorCode::kCancelled, "not started");
  std::optional<CopyEstimate> estimate = std::nullopt;  // dry run: what would move
  MirrorStatus status() const;
};

class MirrorJournal;  // mirror_journal.hpp

struct MirrorOptions {
  bool dry_run = false;     // resolve the sources, ask the destinations, write nothing
  bool keep_going = false;  // continue past failures (else stop starting new copies)
  CopyOptions copy;         // jobs, referrers, observer; `all`/`platform` come from each entry
  OpenOptions open;         // should carry a shared registry client cache
  // Called once per repository whose registry listed tags that are not
  // valid tags, with those tags (skipped: no image, no outcome), before
  // on_planned; the caller warns and counts them.
  std::function<void(const MirrorRepository&, const std::vector<std::string>& tags)> on_skipped_tags;
  // Called once, with every image the run will try (repositories expanded).
  std::function<void(const std::vector<MirrorOutcome>&)> on_planned;
  // Called once per image with its final outcome, serialised: as each copy
  // into a registry or layout finishes (or fails), and for images copied
  // into an archive once the archive is written. Not called for images
  // never started; run_mirror's result has them.
  std::function<void(const MirrorOutcome&)> on_done;
  // Appended to as images finish (and at the start and end of the run).
  MirrorJournal* journal = nullptr;
};

// Runs (or, with dry_run, estimates) every entry, `config.parallel` at a time.
// Outcomes come back in config order (images, then each repository's tags);
// a repository whose tags cannot be listed is one failed outcome.
std::vector<MirrorOutcome> run_mirror(const MirrorConfig& config, const MirrorOptions& options);

}  // namespace strata::oci
