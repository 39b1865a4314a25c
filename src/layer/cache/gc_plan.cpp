#include "layer/cache/gc_plan.hpp"

#include <algorithm>
#include <numeric>

namespace strata::layer {

std::string_view gc_reason_name(GcReason r) { return r == GcReason::kMaxUnused ? "max-unused" : "max-size"; }

GcPlan plan_gc(const GcModel& model, const GcPolicy& policy, std::int64_t now) {
  GcPlan plan;
  std::vector<std::uint32_t> refs(model.blob_sizes.size(), 0);
  for (const auto& e : model.entries)
    for (auto b : e.blobs) ++refs[b];
  auto kept = [&](std::size_t b) { return model.pinned[b] || refs[b] > 0; };
  for (std::size_t b = 0; b < model.blob_sizes.size(); ++b)
    if (kept(b)) plan.bytes_before += model.blob_sizes[b];
  std::uint64_t total = plan.bytes_before;

  // Oldest use first; the index breaks ties so a plan is reproducible.
  std::vector<std::size_t> order(model.entries.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return model.entries[a].last_used < model.entries[b].last_used;
  });
  std::vector<bool> gone(model.entries.size(), false);
  auto evict = [&](std::size_t i, GcReason why) {
    gone[i] = true;
    std::uint64_t freed = 0;
    for (auto b : model.entries[i].blobs) {
      if (--refs[b] == 0 && !model.pinned[b]) freed += model.blob_sizes[b];
    }
    total -= freed;
    plan.evicted.push_back({i, why, freed});
  };
  auto protected_by_age = [&](const GcEntry& e) { return e.created > now - policy.min_age; };

  if (policy.max_unused) {
    for (auto i : order) {
      const auto& e = model.entries[i];
      if (!protected_by_age(e) && e.last_used < now - *policy.max_unused) evict(i, GcReason::kMaxUnused);
    }
  }
  if (policy.max_size) {
    for (auto i : order) {
      if (total <= *policy.max_size) break;
      if (gone[i] || protected_by_age(model.entries[i])) continue;
      evict(i, GcReason::kMaxSize);
    }
    plan.cap_met = total <= *policy.max_size;
  }
  plan.bytes_after = total;
  return plan;
}

}  // namespace strata::layer
