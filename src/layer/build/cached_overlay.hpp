// The overlay a destination already holds under a key's tag, and whether it
// is young enough: with a max_age, only while its archive snapshot
// (kAnnotationArchiveDate) is younger than max_age seconds — so a max_age
// of 0 always rebuilds. A manifest that cannot be read counts as absent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "oci/store.hpp"
#include "util/clock.hpp"

namespace strata::layer {

struct CachedOverlay {
  std::optional<oci::Descriptor> found;      // present and young enough
  std::optional<std::int64_t> expired_date;  // present but older: its archive snapshot date
};

CachedOverlay find_cached_overlay(oci::Store& dest, const std::string& tag, std::optional<std::int64_t> max_age,
                                  const Clock& clock);

}  // namespace strata::layer
