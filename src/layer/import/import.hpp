// import_rootfs: a single-layer image from a root filesystem tarball (from
// mmdebstrap, debootstrap, a build system), normalised so that the same files
// give the same digests whatever order, owners' names or timestamps the
// tarball carried beyond the epoch:
//   - entries sorted (tar_path_less), every parent directory present,
//     hardlinks pointing at the first path of their set in that order;
//   - numeric owners only; mtimes clamped to the epoch when one is given;
//   - the root entry, whiteouts and "security.selinux" xattrs dropped;
//   - hostile tarballs refused (oci::TarReader), as are duplicate paths and
//     entries below a non-directory.
// The layer is spooled to a temporary file while it is hashed (tar →
// compress → file), then written to the store as a blob; the config (with
// the --change edits) and the manifest follow, then the image's SBOMs and
// the provenance of the import as its referrers (layer/sbom). Pure apart
// from temp files: no environment, clock or terminal access.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "oci/compress.hpp"
#include "oci/descriptor.hpp"
#include "oci/platform.hpp"
#include "oci/tar_reader.hpp"

namespace strata::oci {
class Store;
}

namespace strata::layer {

struct ImportOptions {
  // SOURCE_DATE_EPOCH: clamps mtimes and is the config's `created`. When
  // unset, mtimes are kept and `created` is left out. Default unset.
  std::optional<std::int64_t> epoch;
  // Dockerfile-style instructions applied to the config, in order.
  std::vector<std::string> changes;
  oci::Compression compression = oci::Compression::kGzip;
  // The platform recorded in the config. Default linux/amd64.
  oci::Platform platform{"linux", "amd64", "", ""};
  // Tag to give the manifest in the store; none when unset.
  std::optional<std::string> tag;
  // Where the spool files go. Default: the system temp directory.
  std::filesystem::path temp_dir;
  oci::ReadLimits limits;
};

// The provenance's build type of an imported image.
inline constexpr std::string_view kImportBuildType = "https://strata.dev/buildtypes/import/v1";

struct ImportResult {
  oci::Descriptor manifest;
  oci::Descriptor config;
  oci::Descriptor layer;
  oci::LayerDigests digests;
  std::uint64_t entries = 0;
  // What the image did not get (its SBOMs and provenance, in a store that
  // keeps no referrers or when they could not be attached), one line each.
  std::vector<std::string> notes;
};

Result<ImportResult> import_rootfs(const std::filesystem::path& tarball, const ImportOptions& options,
                                   oci::Store& dest);

// Parses SOURCE_DATE_EPOCH (decimal seconds since the epoch). A malformed
// value is an error, as reproducible-builds.org asks.
Result<std::int64_t> parse_source_date_epoch(std::string_view text);

}  // namespace strata::layer
