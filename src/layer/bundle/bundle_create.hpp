// `strata bundle create`: one bundle (docs/format/bundle.md) of the images a
// mirror config names, the locks given and every .deb they name, as an OCI
// layout directory or, for an output ending in .tar, a deterministic tar of
// one. The same inputs give the same bytes.
//
// The .debs come from $STRATA_HOME/debs (fetched first when missing, as
// `strata fetch` does, unless offline); the toolchain releases from
// $STRATA_HOME/toolchains (ensured first, as `strata toolchain install`
// does: bundle_toolchains.hpp). The bundle is assembled in a staging
// directory beside the output (OUT.partial, started afresh by every run)
// and appears under its name only when complete: a directory by rename, a
// tar atomically; an output that exists is refused. A run that fails removes
// its staging directory.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "layer/apt/deb_fetcher.hpp"
#include "layer/bundle/bundle_format.hpp"
#include "layer/bundle/bundle_toolchains.hpp"
#include "oci/copy.hpp"
#include "oci/http/transport.hpp"
#include "oci/open_store.hpp"
#include "util/clock.hpp"

namespace strata::layer {

struct BundleCreateRequest {
  std::filesystem::path out;                 // a directory, or FILE.tar
  std::filesystem::path mirror;              // the mirror config; empty: no images
  std::vector<std::filesystem::path> locks;  // lock files (their names must differ)
  std::filesystem::path home;                // $STRATA_HOME: the .deb cache
  oci::OpenOptions open;                     // stores of the images' sources
  oci::CopyOptions copy;                     // jobs, observer; all/platform come from each entry
  bool offline = false;                      // missing .debs (and toolchains) are an error, not a download
  std::vector<BundleToolchainInput> toolchains;  // releases ensured into the cache, then carried
};

struct BundleCreateReport {
  BundleContents contents;     // sorted as the bundle index lists them
  oci::Descriptor index;       // the bundle index (tagged strata-bundle)
  bool tar = false;
  std::string sha256;          // a tar: the file's sha256 (hex)
  std::uint64_t blob_bytes = 0;  // every blob in the bundle
  FetchReport fetch;           // .debs downloaded into the cache first
  std::uint64_t toolchain_downloaded = 0;  // toolchain archive bytes downloaded into the cache first
};

// True when `out` names a tar (ends in .tar).
bool bundle_is_tar(const std::filesystem::path& out);
// --out as the bundle is written: `DIR/` (a directory, as a shell completes
// it) is DIR.
std::filesystem::path bundle_out_path(const std::filesystem::path& out);

Result<BundleCreateReport> create_bundle(const BundleCreateRequest& request, oci::http::Transport& http, Clock& clock);

}  // namespace strata::layer
