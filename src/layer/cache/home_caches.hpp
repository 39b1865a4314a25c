// The caches of derived data under $STRATA_HOME besides the image store:
// downloaded packages (debs/), converted fragments (fragments/), verified
// archive indexes and their by-name form (indexes/), base filesystems
// (basefs/), bases' dpkg state (basestate/) and toolchain archives and
// layers (toolchains/). Each can be deleted whole at
// any time: strata downloads or derives it again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace strata::layer {

struct HomeCache {
  std::string name;         // "debs", "fragments", "indexes", "basefs", "basestate", "toolchains"
  std::uint64_t bytes = 0;  // regular files, as stored
  std::uint64_t files = 0;
};

// The size of each cache under `home`, in the order above; a cache that does
// not exist is listed with zeros.
std::vector<HomeCache> home_caches(const std::filesystem::path& home);

// One thing `strata cache gc` may evict from these caches: a package file,
// a fragment's directory, an index or its by-name form, a base's filesystem
// or dpkg state.
// Its last use is its modification time (the newest of a directory's
// files): when it was written or last used — a fetch that finds a package
// in debs/ and a build that reuses a fragment mark it (fs::mark_used).
struct HomeCacheItem {
  std::string cache;  // "debs", "fragments", "indexes", "basefs", "basestate", "toolchains"
  std::filesystem::path path;
  bool directory = false;
  std::uint64_t bytes = 0;
  std::int64_t mtime = 0;  // seconds since the epoch
};
std::vector<HomeCacheItem> home_cache_items(const std::filesystem::path& home);

// Removes one item so that a reader sees it whole or not at all: a
// directory is renamed to a ".gc-" name first, then deleted (what a killed
// gc left is deleted by the next one, remove_home_leftovers).
Result<void> remove_home_item(const HomeCacheItem& item);
Result<void> remove_home_leftovers(const std::filesystem::path& home);

}  // namespace strata::layer
