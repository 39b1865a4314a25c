#include "layer/build/cached_overlay.hpp"

#include <map>

#include "layer/overlay/overlay.hpp"
#include "oci/manifest.hpp"
#include "util/strings.hpp"

namespace strata::layer {

CachedOverlay find_cached_overlay(oci::Store& dest, const std::string& tag, std::optional<std::int64_t> max_age,
                                  const Clock& clock) {
  CachedOverlay out;
  auto desc = dest.resolve(tag);
  if (!desc) return out;
  if (!max_age) {
    out.found = *desc;
    return out;
  }
  auto fetched = oci::fetch_manifest(dest, desc->digest.str());
  if (!fetched) return out;
  std::map<std::string, std::string> annotations;
  if (auto* m = std::get_if<oci::ImageManifest>(&fetched->parsed)) annotations = m->annotations;
  if (auto* i = std::get_if<oci::ImageIndex>(&fetched->parsed)) annotations = i->annotations;
  auto date = annotations.find(std::string(kAnnotationArchiveDate));
  std::int64_t when = date == annotations.end() ? 0 : static_cast<std::int64_t>(str::parse_u64(date->second).value_or(0));
  if (clock.now() - when >= *max_age) {
    out.expired_date = when;
  } else {
    out.found = *desc;
  }
  return out;
}

}  // namespace strata::layer
