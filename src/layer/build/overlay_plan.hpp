// An overlay spec checked and pinned down: its locks read (kMaxLockBytes),
// its platforms chosen (given, else the locks', else this machine's; with
// locks, exactly one lock per platform), its cache key computed. `strata key` prints the key; build() (build.hpp)
// builds the plan. Nothing is written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layer/apt/lock_file.hpp"
#include "layer/build/cache_key.hpp"
#include "layer/build/overlay_spec.hpp"

namespace strata::layer {

struct OverlayPlan {
  OverlaySpec spec;
  std::vector<Lock> locks;  // spec.locks, read, in the order of `platforms`
  std::vector<oci::Platform> platforms;
  OverlayKey key;
  // Several locks: the request key they were resolved for, which the
  // overlay's index carries (as the resolving build's does), so the index
  // rebuilt from the locks has that build's digest. Looked up and tagged by
  // `key` (of the locks' contents), never by this one: a newer resolution of
  // the request may hold that tag.
  std::optional<OverlayKey> index_key;
  // Each lock resolved on another base than --base gives for its platform:
  // one line naming the lock and both digests. A build goes on (its
  // .debs are the lock's); `build --strict` refuses it.
  std::vector<std::string> base_mismatches;

  // The lock of `p`; nullptr when resolving.
  const Lock* lock_for(const oci::Platform& p) const;
};

Result<OverlayPlan> plan_overlay(OverlaySpec spec);

}  // namespace strata::layer
