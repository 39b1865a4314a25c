// An overlay spec checked and pinned down: its lock read (kMaxLockBytes),
// its platforms chosen (given, else the lock's, else this machine's), its
// cache key computed. `strata key` prints the key; build() (build.hpp)
// builds the plan. Nothing is written.
#pragma once

#include <optional>
#include <vector>

#include "layer/apt/lock_file.hpp"
#include "layer/build/cache_key.hpp"
#include "layer/build/overlay_spec.hpp"

namespace strata::layer {

struct OverlayPlan {
  OverlaySpec spec;
  std::optional<Lock> lock;  // spec.lock, read
  std::vector<oci::Platform> platforms;
  OverlayKey key;
};

Result<OverlayPlan> plan_overlay(OverlaySpec spec);

}  // namespace strata::layer
