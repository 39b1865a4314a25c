// Loading apt archives: for every source and suite, fetch and verify the
// Release (InRelease, else Release + Release.gpg), apply apt's checks, then
// fetch, verify and parse the Packages indexes for the wanted architectures
// (plus binary-all when the Release publishes it separately).
// The library never prints: warnings are returned for the CLI to show.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "layer/apt/apt_sources.hpp"
#include "layer/apt/name_index.hpp"
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
  // An InRelease confirmed current less than this many seconds ago is used
  // without asking the archive (remembered_release.hpp); past it, or at 0,
  // it is revalidated with a conditional GET, the sources in parallel.
  // Date and Valid-Until are checked on every run either way.
  std::int64_t index_max_age = 0;
  // Told before anything is fetched from the network (the URLs and why), on
  // the calling thread: a resolve that has to fetch says so.
  std::function<void(const std::string&)> on_fetch;
  // Also decode every package of every index into LoadedIndex::packages
  // (callers that scan the whole archive); the resolver reads `index`.
  bool decode_packages = true;
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
  std::shared_ptr<const NameIndex> index;  // the packages, read by name
  std::vector<Package> packages;           // all of them, with ArchiveOptions::decode_packages
};

struct LoadedArchive {
  std::vector<LoadedSource> sources;
  std::vector<LoadedIndex> indexes;  // in apt's source order
  std::vector<std::string> warnings;
};

Result<LoadedArchive> load_archive(oci::http::Transport& transport, const std::vector<AptSource>& sources,
                                   const ArchiveOptions& options);

}  // namespace strata::layer
