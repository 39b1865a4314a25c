// `strata cache gc` as one library call: evicts overlays from a cache (the
// local store, a layout, or a cache repository in a registry) by last use
// under the policy of gc_plan.hpp, with the $STRATA_HOME caches (debs/,
// fragments/, indexes/) under the same cap when the cache is the local one.
//
// A layout: the plan and every removal run while gc holds the layout's
// lease exclusively (LayoutStore::lease_path; every process with the layout
// open for writing holds it shared). index.json loses the evicted tags,
// their use records and referrers first, in one atomic rewrite; then every
// blob no entry of the new index.json reaches (manifests, indexes, configs,
// layers, recursively) and older than --min-age is removed. A gc killed
// between any two steps leaves a valid layout and the next one finishes.
// When a writer holds the lease, the tags still go but the blobs stay for
// the next gc (sweep_deferred); the home caches likewise wait for builds
// holding $STRATA_HOME/locks/gc.lock (fs::home_lease_path).
//
// gc deletes only what it can prove unreferenced. When any manifest or
// index reachable from index.json cannot be read (missing, unparseable,
// over kMaxManifestBytes, nested past kMaxIndexDepth), what it names is
// unknown, so no blob is removed this run (kept_all says which); the tags
// still go. gc never deletes through a symbolic link: a blobs/ or
// blobs/<alg>/ that is one (a layout sharing another's store) is not swept
// at all, a blob that is one is left, and each removal is an unlinkat(2)
// in a directory opened with O_NOFOLLOW.
//
// A registry: each evicted overlay's manifest is deleted by digest (the
// distribution registry refuses DELETE by tag), then its index's children
// that nothing else names, its use records and its referrers. The bytes
// come back only when the registry runs its own garbage collection. A tag
// whose image cannot be read may share any of those manifests (a DELETE by
// digest removes every tag of it), so while one is there nothing is deleted.
//
// Use records with impossible times (implausible_use) are ignored, their
// overlays counted as unrecorded, and the report lists them.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "layer/cache/gc_plan.hpp"
#include "layer/cache/overlay_listing.hpp"
#include "oci/store.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct GcOptions {
  GcPolicy policy;
  bool dry_run = false;
  // The local cache's home: its debs/, fragments/ and indexes/ are counted
  // and evicted too. Unset for any other cache.
  std::optional<std::filesystem::path> home;
};

struct GcOverlay {
  std::vector<std::string> keys;  // hex
  oci::Descriptor root;
  std::int64_t last_used = 0;     // 0: never recorded
  std::int64_t created = 0;
  std::uint64_t size = 0;         // every blob it refers to
  std::uint64_t freed = 0;        // of those, bytes nothing that stays refers to
  GcReason reason = GcReason::kMaxSize;
};

// One manifest deleted (a registry) or one index.json entry removed (a layout).
struct GcRemoved {
  std::string what;    // "overlay", "child manifest", "use record", "referrer"
  std::string ref;     // the tag, or "" for a manifest named only by its digest
  std::string digest;
};

struct GcBlob {
  std::string digest;
  std::uint64_t bytes = 0;
};

struct GcHomeItem {
  std::string cache;   // "debs", "fragments", "indexes", "basefs", "basestate"
  std::string path;
  std::uint64_t bytes = 0;
  std::int64_t mtime = 0;
  GcReason reason = GcReason::kMaxSize;
};

struct GcReport {
  std::string cache;          // describe() of the store
  bool registry = false;      // blob space returns after the registry's own gc
  bool dry_run = false;
  std::vector<GcOverlay> overlays;   // evicted, least recently used first
  std::size_t kept_overlays = 0;
  std::vector<GcRemoved> removed;
  std::vector<GcBlob> blobs;         // swept from a layout
  std::uint64_t blob_bytes = 0;
  std::vector<GcHomeItem> home;      // evicted from $STRATA_HOME's caches
  std::uint64_t home_bytes = 0;
  std::uint64_t bytes_before = 0;    // counted as the cap counts them (blobs once, home files)
  std::uint64_t bytes_after = 0;
  bool cap_met = true;
  bool sweep_deferred = false;       // a writer holds the layout's lease
  bool home_deferred = false;        // a build holds the home's lease
  std::vector<std::string> problems; // what could not be read or removed (gc went on)
  // Why this run deleted no blob (a layout) or no manifest (a registry),
  // "" when it could: "an image gc cannot read: …", "blobs/sha256 is a
  // symbolic link …". The next gc tries again.
  std::string kept_all;
  std::vector<IgnoredUse> ignored_uses;  // use records not believed
};

Result<GcReport> collect_garbage(oci::Store& store, const GcOptions& options, const Clock& clock);

}  // namespace strata::layer
