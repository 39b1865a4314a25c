// Which cache entries `strata cache gc` evicts, decided on a model of the
// cache with no store in sight: entries (an overlay, a file of
// $STRATA_HOME's caches) with their last use, when they were created and
// the blobs they hold; blobs some other image keeps are pinned. Least
// recently used first; --max-unused drops what was not used for that long,
// --max-size is a cap (evict until what stays fits, never a floor), and
// --min-age protects anything younger. Bytes are counted once per blob, so
// evicting one of two overlays that share a layer frees only its own.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace strata::layer {

struct GcPolicy {
  std::optional<std::uint64_t> max_size;    // bytes
  std::optional<std::int64_t> max_unused;   // seconds
  std::int64_t min_age = 2 * 3600;          // seconds; the default is Harbor's
};

struct GcEntry {
  std::int64_t last_used = 0;  // seconds since the epoch
  std::int64_t created = 0;    // seconds since the epoch
  std::vector<std::size_t> blobs;  // indexes into GcModel::blob_sizes
};

struct GcModel {
  std::vector<std::uint64_t> blob_sizes;
  std::vector<bool> pinned;  // kept whatever happens (another image uses it, or it is too young)
  std::vector<GcEntry> entries;
};

enum class GcReason { kMaxUnused, kMaxSize };
std::string_view gc_reason_name(GcReason r);  // "max-unused", "max-size"

struct GcDecision {
  std::size_t entry = 0;
  GcReason reason = GcReason::kMaxSize;
  std::uint64_t freed = 0;  // bytes no entry that stays nor a pinned blob holds
};

struct GcPlan {
  std::vector<GcDecision> evicted;  // in the order decided (least recently used first per reason)
  std::uint64_t bytes_before = 0;   // pinned blobs and every entry's, once each
  std::uint64_t bytes_after = 0;
  bool cap_met = true;              // false: what is protected or pinned alone exceeds --max-size
};

GcPlan plan_gc(const GcModel& model, const GcPolicy& policy, std::int64_t now);

}  // namespace strata::layer
