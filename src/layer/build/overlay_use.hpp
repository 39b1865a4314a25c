// When an overlay was last used — built, or found by a build or a
// provision — recorded in the store that holds it, so `strata cache gc`
// evicts by last use (not by atime, which noatime mounts never update, nor
// by creation). The record is a small OCI artifact (artifactType
// kUseArtifactType, the empty config, `subject` the overlay) tagged
// `overlay-<key>.used` beside the overlay's `overlay-<key>`: every builder
// sharing a registry or a layout reads and refreshes the same record, so a
// fleet's use is seen with no registry feature and no service. A record
// younger than `refresh` seconds is left alone, so a registry sees at most
// one write per key per refresh (a day by default, as BuildKit's
// touch_refresh). docs/format/overlay.md "Last use".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "oci/descriptor.hpp"
#include "oci/store.hpp"
#include "util/clock.hpp"
#include "util/error.hpp"

namespace strata::layer {

inline constexpr std::string_view kUseArtifactType = "application/vnd.strata.overlay.use.v1";
inline constexpr std::string_view kAnnotationLastUsed = "dev.strata.overlay.last-used";  // seconds since the epoch
// The first use this store recorded (when the overlay arrived), kept across refreshes.
inline constexpr std::string_view kAnnotationFirstUsed = "dev.strata.overlay.first-used";
// The base as the last user named it: not part of the overlay's bytes,
// which depend only on the base's digest.
inline constexpr std::string_view kAnnotationBaseName = "dev.strata.overlay.base.name";
inline constexpr std::string_view kUseTagSuffix = ".used";
inline constexpr std::int64_t kRegistryUseRefresh = 24 * 3600;
inline constexpr std::int64_t kLayoutUseRefresh = 3600;

// "overlay-<key>" → "overlay-<key>.used".
std::string use_tag(std::string_view overlay_tag);

struct OverlayUse {
  std::int64_t last_used = 0;   // seconds since the epoch
  std::int64_t first_used = 0;  // seconds since the epoch
  std::string base_name;
  oci::Descriptor record;      // the record's own manifest
  oci::Descriptor subject;     // the overlay it is about
};

// The record of `overlay_tag` in `store`, if there is a readable one, its
// times as written (check them with implausible_use before believing them).
std::optional<OverlayUse> read_use(oci::Store& store, std::string_view overlay_tag);

// How far in the future a record's time may be and still be believed: the
// clocks of a fleet's machines differ by this much (Kerberos' default skew).
inline constexpr std::int64_t kUseClockSkew = 300;

// Why `use` cannot be true at `now` — a first or last use later than now
// plus kUseClockSkew, or a last use before the first — or "" when it can.
// A shared cache's records are written by others: a first use in the future
// would keep an overlay younger than --min-age for ever, a last use there
// would keep it "used" for ever. Such a record is ignored (the overlay
// counts as unrecorded) and the next use overwrites it.
std::string implausible_use(const OverlayUse& use, std::int64_t now);

// Records that `overlay` (tagged `overlay_tag`) is used now, unless the
// record already says so within `refresh` seconds for this same overlay.
// Returns whether it wrote.
Result<bool> record_use(oci::Store& store, std::string_view overlay_tag, const oci::Descriptor& overlay,
                        std::string_view base_name, const Clock& clock, std::int64_t refresh);

}  // namespace strata::layer
