// What an overlay cache holds (`strata cache ls`): every overlay a store
// tags `overlay-<key>` — a local layout, `$STRATA_HOME/images`, or a cache
// repository in a registry — with its keys, base, packages, platforms,
// sizes and last use. Read-only: it reads manifests and image configs,
// never layers.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "oci/descriptor.hpp"
#include "oci/store.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct CachedOverlayEntry {
  oci::Descriptor root;               // the overlay's manifest, or its index (several platforms)
  // Hex of every overlay-<key> tag naming it, sorted, but the content key
  // (the image's dev.strata.overlay.key) last: a resolving build's request
  // key, which `strata key` and prewarm print, comes first.
  std::vector<std::string> keys;
  std::vector<std::string> platforms; // "linux/amd64", …
  std::vector<std::string> base_digests;  // the base manifest per platform, in platform order
  std::string base_name;              // as the last recorded use named it; "" if none
  std::vector<std::string> packages;  // name=version:arch, from dev.strata.overlay.packages
  std::string lock_digest;            // dev.strata.overlay.lock.digest ("" for an index)
  std::int64_t first_used = 0;        // seconds since the epoch; 0 when no use is recorded
  std::int64_t last_used = 0;
  std::uint64_t size = 0;             // manifests, configs and layers, compressed
  std::uint64_t unique_size = 0;      // of those, bytes no other image in the store refers to
  std::map<std::string, std::uint64_t> blobs;  // digest → size: the manifests, configs and layers counted in size
};

// A use record not believed (layer/build/overlay_use.hpp implausible_use).
struct IgnoredUse {
  std::string tag;     // overlay-<key>.used
  std::string reason;  // "first use 2031-01-01T00:00:00Z is in the future"
};

struct CacheListing {
  std::vector<CachedOverlayEntry> overlays;  // most recently used first, then by key
  std::uint64_t overlay_bytes = 0;           // union of every overlay's blobs
  // Blobs a tagged image other than an overlay or a use record refers to
  // (a base, an application image): evicting overlays never frees them.
  std::set<std::string> other_blobs;
  // Tags whose image could not be read (resolved, or its manifests walked):
  // "store:tag: error". What such an image refers to is unknown, so nothing
  // may be deleted on the strength of this listing while one is here.
  std::vector<std::string> unreadable;
  // Use records with impossible times: their overlays count as unrecorded.
  std::vector<IgnoredUse> ignored_uses;
  // Referrers tags (the OCI referrers tag schema, "sha256-<hex>": a registry
  // without the referrers API keeps an image's referrers in an index so
  // tagged) whose subject is gone, as tag → the index's digest: left over,
  // not an image; gc deletes them. Skipped quietly, as is a referrers index
  // whose referrers are gone.
  std::map<std::string, std::string> dangling_referrers;
};

// Whether `tag` is a referrers tag of the tag schema ("sha256-" + 64 hex).
bool is_referrers_tag(std::string_view tag);

// Lists the overlays of `store`. A tag whose manifest cannot be read is
// skipped with a line in `problems` (the listing is still useful) and in
// `unreadable`. Use records are judged against `clock`.
Result<CacheListing> list_overlays(oci::Store& store, const Clock& clock, std::vector<std::string>& problems);

// One line for the use records a listing ignored ("" when none), e.g.
// "ignored 2 use records with impossible times (overlay-0123456789ab….used:
// first use 2031-01-01T00:00:00Z is in the future; and 1 more); their
// overlays count as never used".
std::string ignored_uses_summary(const std::vector<IgnoredUse>& ignored);

// Whether `tag` is an overlay's key tag ("overlay-" + 64 hex).
bool is_overlay_tag(std::string_view tag);

}  // namespace strata::layer
