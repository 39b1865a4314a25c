#include "layer/build/overlay_use.hpp"

#include <algorithm>

#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kEmptyJson = "{}";

oci::Descriptor empty_descriptor() {
  oci::Descriptor d;
  d.media_type = std::string(oci::media::kOciEmpty);
  d.digest = oci::Digest::sha256_of(kEmptyJson);
  d.size = static_cast<std::int64_t>(kEmptyJson.size());
  return d;
}

}  // namespace

std::string use_tag(std::string_view overlay_tag) { return std::string(overlay_tag) + std::string(kUseTagSuffix); }

std::optional<OverlayUse> read_use(oci::Store& store, std::string_view overlay_tag) {
  auto fetched = oci::fetch_manifest(store, use_tag(overlay_tag));
  if (!fetched) return std::nullopt;
  const auto* m = std::get_if<oci::ImageManifest>(&fetched->parsed);
  if (!m || m->artifact_type != kUseArtifactType || !m->subject) return std::nullopt;
  auto at = m->annotations.find(std::string(kAnnotationLastUsed));
  if (at == m->annotations.end()) return std::nullopt;
  auto when = str::parse_u64(at->second);
  if (!when) return std::nullopt;
  OverlayUse use;
  use.last_used = use.first_used = static_cast<std::int64_t>(*when);
  if (auto first = m->annotations.find(std::string(kAnnotationFirstUsed)); first != m->annotations.end()) {
    use.first_used = static_cast<std::int64_t>(str::parse_u64(first->second).value_or(*when));
  }
  if (auto base = m->annotations.find(std::string(kAnnotationBaseName)); base != m->annotations.end()) {
    use.base_name = base->second;
  }
  use.record = fetched->raw.descriptor;
  use.subject = *m->subject;
  return use;
}

std::string implausible_use(const OverlayUse& use, std::int64_t now) {
  if (use.first_used > now + kUseClockSkew) return "first use " + str::rfc3339(use.first_used) + " is in the future";
  if (use.last_used > now + kUseClockSkew) return "last use " + str::rfc3339(use.last_used) + " is in the future";
  if (use.last_used < use.first_used) {
    return "last use " + str::rfc3339(use.last_used) + " is before the first use " + str::rfc3339(use.first_used);
  }
  return "";
}

Result<bool> record_use(oci::Store& store, std::string_view overlay_tag, const oci::Descriptor& overlay,
                        std::string_view base_name, const Clock& clock, std::int64_t refresh) {
  const std::int64_t now = clock.now();
  std::int64_t first = now;
  // A record with impossible times is not believed: it is overwritten as if absent.
  if (auto seen = read_use(store, overlay_tag);
      seen && seen->subject.digest == overlay.digest && implausible_use(*seen, now).empty()) {
    if (now - seen->last_used < refresh && seen->last_used <= now) return false;
    first = std::min(seen->first_used, now);
  }
  oci::Descriptor empty = empty_descriptor();
  STRATA_TRY_VOID(oci::write_blob(store, empty, kEmptyJson));
  oci::ImageManifest m;
  m.media_type = std::string(oci::media::kOciManifest);
  m.artifact_type = std::string(kUseArtifactType);
  m.config = empty;
  m.layers = {empty};  // an artifact with no content lists the empty descriptor (image-spec 1.1)
  oci::Descriptor subject;
  subject.media_type = overlay.media_type;
  subject.digest = overlay.digest;
  subject.size = overlay.size;
  m.subject = subject;
  m.annotations[std::string(kAnnotationLastUsed)] = std::to_string(now);
  m.annotations[std::string(kAnnotationFirstUsed)] = std::to_string(first);
  if (!base_name.empty()) m.annotations[std::string(kAnnotationBaseName)] = std::string(base_name);
  m.annotations["org.opencontainers.image.created"] = str::rfc3339(now);
  auto raw = oci::make_raw_manifest(std::string(oci::media::kOciManifest), oci::serialize(m));
  STRATA_TRY_VOID(store.put_manifest(raw, use_tag(overlay_tag)));
  return true;
}

}  // namespace strata::layer
