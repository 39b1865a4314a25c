// Downloads the .debs of a lock into the content-addressed cache
// $STRATA_HOME/debs/sha256/<hex>. A file appears under its hash only after
// its size and SHA256 are verified; interrupted downloads resume from
// debs/ingest/<hex>.partial with an HTTP Range request; transient failures
// are retried with exponential backoff (through the Clock, so tests do not
// sleep). A file: source is read from disk and checked alike. Parallel
// across `jobs` threads; the Transport must be thread-safe.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "layer/apt/lock_file.hpp"
#include "oci/http/transport.hpp"
#include "util/clock.hpp"

namespace strata::layer {

struct FetchOptions {
  std::filesystem::path home;  // $STRATA_HOME
  unsigned jobs = 4;
  unsigned attempts = 4;       // per package
  bool offline = false;        // never touch the network
  Clock* clock = nullptr;      // REQUIRED (backoff)
};

struct FetchReport {
  std::size_t downloaded = 0;
  std::size_t cached = 0;
  std::uint64_t bytes = 0;
};

// Path of a package in the cache (it may not exist yet).
std::filesystem::path deb_cache_path(const std::filesystem::path& home, const std::string& sha256);
// The lock one process holds while it writes a package into the cache
// (a download, or a bundle's copy): two processes sharing a home never
// write one ingest file at once.
std::filesystem::path deb_ingest_lock_path(const std::filesystem::path& home, const std::string& sha256);

Result<FetchReport> fetch_debs(oci::http::Transport& transport, const Lock& lock, const FetchOptions& options);

}  // namespace strata::layer
