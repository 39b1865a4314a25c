// The caches of derived data under $STRATA_HOME besides the image store:
// downloaded packages (debs/), converted fragments (fragments/), verified
// archive indexes (indexes/) and base filesystems (basefs/). Each can be
// deleted whole at any time: strata downloads or derives it again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace strata::layer {

struct HomeCache {
  std::string name;         // "debs", "fragments", "indexes", "basefs"
  std::uint64_t bytes = 0;  // regular files, as stored
  std::uint64_t files = 0;
};

// The size of each cache under `home`, in the order above; a cache that does
// not exist is listed with zeros.
std::vector<HomeCache> home_caches(const std::filesystem::path& home);

}  // namespace strata::layer
