// Loading apt archives: for every source and suite, fetch and verify the
// Release (InRelease, else Release + Release.gpg), apply apt's checks, then
// fetch, verify and parse the Packages indexes for the wanted architectures
// (plus binary-all when the Release publishes it separately).
// The library never prints: warnings are returned for the CLI to show.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "layer/apt/apt_sources.hpp"
#include "layer/debian/package.hpp"
#include "layer/apt/release.hpp"
#include "oci/http/transport.hpp"
#include "util/clock.hpp"

namespace strata::layer {

struct ArchiveOptions {
  std::filesystem::path home;               // $STRATA_HOME; indexes go to home/indexes
  std::string arch = "amd64";               // the target (native) architecture
  std::vector<std::string> foreign_archs;   // more architectures to index
  Clock* clock = nullptr;                   // REQUIRED
  bool allow_unsigned = false;              // honour "Trusted: yes" sources (loudly)
  std::filesystem::path apt_dir = "/etc/apt";  // for fingerprint-only Signed-By
  // No network: each source's InRelease as last fetched on this machine
  // (home/releases/by-url), verified and date-checked as if fetched now.
  bool offline = false;
};

struct LoadedSource {
  AptSource source;
  Release release;
  std::string release_sha256;  // of the Release bytes as signed (InRelease file or Release)
  std::string fingerprint;     // key that signed it; empty for trusted=yes sources
  int priority = 500;
};

struct LoadedIndex {
  std::size_t source = 0;  // into LoadedArchive::sources
  std::string component;
  std::string arch;
  std::string sha256;  // of the uncompressed index
  std::vector<Package> packages;
};

struct LoadedArchive {
  std::vector<LoadedSource> sources;
  std::vector<LoadedIndex> indexes;  // in apt's source order
  std::vector<std::string> warnings;
};

Result<LoadedArchive> load_archive(oci::http::Transport& transport, const std::vector<AptSource>& sources,
                                   const ArchiveOptions& options);

}  // namespace strata::layer
