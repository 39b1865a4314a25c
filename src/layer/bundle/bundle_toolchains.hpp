// Toolchain releases in a bundle (docs/format/bundle.md "Toolchains"): on
// the connected side each is ensured (resolved, its archives downloaded and
// verified as its project publishes them, into $STRATA_HOME/toolchains/)
// and packed as one artifact — the release record, then its archives; on
// the far side every archive is checked against the record (its sha256 or
// sha512) and against the bundle's own digest, all of them staged before
// any is published, so a bundle with one altered byte seeds nothing. Then
// the archives appear in $STRATA_HOME/toolchains/archives/ by link
// (never over a cached one) and the record in toolchains/releases/, where
// `strata --offline toolchain install` and `provision` find the release.
#pragma once

#include <filesystem>
#include <string>
#include <memory>
#include <vector>

#include "layer/bundle/bundle_format.hpp"
#include "util/fs.hpp"
#include "layer/toolchain/release.hpp"
#include "layer/toolchain/toolchain_entry.hpp"
#include "oci/http/transport.hpp"
#include "oci/store.hpp"

namespace strata::layer {

// `bundle create --toolchains FILE`: YAML whose one key is `toolchains`, a
// list of entries (toolchain_entry.hpp: tool, version, source, keyring,
// platforms); relative keyrings from the file's directory.
Result<std::vector<toolchain::ToolchainEntry>> load_bundle_toolchains(const std::filesystem::path& file);

struct BundleToolchainInput {
  std::string where;                     // the config entry, for messages
  toolchain::ResolveRequest resolve;
};

struct EnsuredToolchains {
  std::vector<toolchain::Release> releases;  // one per distinct release, in input order
  std::uint64_t downloaded = 0;              // archive bytes fetched first
  // The home caches' leases of the layers ensured: cache gc leaves their
  // archives alone until the bundle has packed them.
  std::vector<std::shared_ptr<fs::FileLock>> leases;
};

// Every input through ensure_toolchain (offline: from the cache only).
Result<EnsuredToolchains> ensure_bundle_toolchains(oci::http::Transport& http,
                                                   const std::vector<BundleToolchainInput>& inputs,
                                                   const std::filesystem::path& home, bool offline);

// The release's record, archives (from the cache) and artifact into `bundle`.
Result<BundleToolchain> put_toolchain(oci::Store& bundle, const std::filesystem::path& home,
                                      const toolchain::Release& release);

struct ToolchainSeedReport {
  std::vector<toolchain::Release> releases;  // as their records say, in the bundle's order
  std::size_t archives_seeded = 0, archives_present = 0;
  std::uint64_t bytes = 0;                   // seeded
};

// Verifies every toolchain of the bundle, then seeds the home with all of them.
Result<ToolchainSeedReport> seed_toolchains(oci::Store& bundle, const std::vector<BundleToolchain>& toolchains,
                                            const std::filesystem::path& home);

}  // namespace strata::layer
