#include "layer/build/overlay_index.hpp"

#include <algorithm>

#include "oci/media_types.hpp"

namespace strata::layer {

oci::RawManifest overlay_index(const std::vector<PlatformBuild>& builds, const OverlayKey& key) {
  oci::ImageIndex idx;
  idx.media_type = std::string(oci::media::kOciIndex);
  std::int64_t snapshot = 0;
  for (const auto& b : builds) {
    oci::Descriptor d = b.overlay.manifest;
    d.platform = b.platform;
    idx.manifests.push_back(d);
    snapshot = std::max(snapshot, archive_date(b.lock));
  }
  idx.annotations[std::string(kAnnotationKey)] = key.hex;
  idx.annotations[std::string(kAnnotationArchiveDate)] = std::to_string(snapshot);
  return oci::make_raw_manifest(std::string(oci::media::kOciIndex), oci::serialize(idx));
}

}  // namespace strata::layer
