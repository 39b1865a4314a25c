// A lock re-pointed at mirrors of its sources (`--sources` with `--lock`):
// an internal mirror (file:// or http://) serves the same archive, so each
// lock source takes the URI of the given source with its suite whose
// components include the lock source's. The packages are unchanged: each
// .deb fetched from the mirror is checked against the lock's size and
// sha256 as from the original (apt/deb_fetcher), and the overlay's cache
// key, computed from the lock as written, stays the same. Pure; thread-safe.
#pragma once

#include <vector>

#include "layer/apt/apt_sources.hpp"
#include "layer/apt/lock_file.hpp"

namespace strata::layer {

// `lock` with every source's URI replaced by its mirror's; a lock source no
// mirror serves is an error naming it and the sources given.
Result<Lock> repoint_lock(Lock lock, const std::vector<AptSource>& mirrors);

}  // namespace strata::layer
