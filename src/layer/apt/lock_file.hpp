// The resolution lock: exactly which .debs an overlay contains and where
// they came from, so a build from a lock reads no index. YAML with
// deterministic bytes for the same content (fixed key order, sorted
// packages, quoted strings). Parsing validates every field and reports the
// first problem with its location. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::layer {

struct LockSource {
  std::string uri;
  std::string suite;
  std::vector<std::string> components;
  std::string release_sha256;
  std::int64_t date = 0;  // the Release Date, seconds since the epoch
  std::string fingerprint;  // the key that signed the Release
  // The source's trusted keys as the overlay cache key names them
  // (source_key_identities); absent in locks written before they were recorded.
  std::optional<std::vector<std::string>> keys;
};

struct LockPackage {
  std::string name, version, architecture;
  std::string filename;  // relative to the source URI
  std::uint64_t size = 0;
  std::string sha256;
  std::size_t source = 0;  // index into Lock::sources
};

struct Lock {
  static constexpr int kFormat = 1;
  std::string platform;        // "linux/amd64"
  std::string base_reference;  // empty for --status or scratch
  std::string base_digest;
  std::vector<std::string> request;
  std::vector<LockSource> sources;
  std::vector<LockPackage> packages;  // sorted by name, architecture on write
};

// The largest lock file read: a lock of every package in bookworm's main
// for one architecture (~60,000 entries of ~300 bytes) is about 20 MiB.
inline constexpr std::uint64_t kMaxLockBytes = std::uint64_t{64} << 20;

// The newest Release Date of the lock's sources (0 without sources): the
// lock's archive snapshot.
std::int64_t archive_date(const Lock& lock);

std::string write_lock(Lock lock);
Result<Lock> parse_lock(std::string_view text, std::string_view what);
// Reads (at most kMaxLockBytes) and parses the lock file at `path`.
Result<Lock> read_lock_file(const std::filesystem::path& path);

}  // namespace strata::layer
