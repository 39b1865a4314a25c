// What an overlay is made of (docs/format/overlay.md): a base — an image, or
// a Debian root from the archive alone (kScratchBase) — and the packages to
// add, resolved from apt sources or given by a lock, for one or several
// platforms, in one compression. `strata build` and `strata key` fill it
// from the same options; plan_overlay (overlay_plan.hpp) checks it and
// computes its cache key.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "layer/scratch/scratch_base.hpp"
#include "layer/scratch/scratch_packages.hpp"
#include "oci/compress.hpp"
#include "oci/platform.hpp"
#include "oci/store.hpp"

namespace strata::layer {

struct OverlaySpec {
  std::string base;                  // the base's reference as given (annotations, messages), or kScratchBase
  oci::Store* base_store = nullptr;  // holds the base; unused for scratch
  std::string base_ref;              // the base within base_store (tag or digest; may be empty)
  std::vector<std::string> packages;  // NAME, NAME:ARCH or NAME=VERSION
  // Build exactly these locks (reads no index), one per platform; empty: resolve.
  std::vector<std::filesystem::path> locks;
  std::vector<std::string> sources;   // apt sources files; empty: the host's
  std::vector<oci::Platform> platforms;  // empty: the locks', else this machine's
  oci::Compression compression = oci::Compression::kGzip;
  ScratchVariant variant = ScratchVariant::kMinbase;  // the package set of a scratch base
  bool allow_unsigned = false;                        // accept sources marked Trusted: yes
  // The image's timestamps (SOURCE_DATE_EPOCH); none: the newest Release
  // Date of the lock. Part of the key when given, since it changes the bytes.
  std::optional<std::int64_t> epoch;

  bool scratch() const { return base == kScratchBase; }
};

}  // namespace strata::layer
