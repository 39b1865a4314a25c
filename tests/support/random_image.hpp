// Builds test images in any Store: random layer bytes (not valid tars; the
// copy engine treats blobs as opaque), a config, a manifest, and optionally a
// multi-platform index. Deterministic for a given seed.
#pragma once

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "oci/media_types.hpp"
#include "oci/store.hpp"

namespace strata::testing {

inline std::string random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (auto& c : s) c = static_cast<char>(rng());
  return s;
}

struct TestImage {
  oci::RawManifest manifest;
  oci::Descriptor config;
  std::vector<oci::Descriptor> layers;
  std::vector<std::string> layer_bytes;
};

// An image over the given layer bytes (blobs written to `store`; layers
// shared between images are written once).
inline TestImage make_image_of(oci::Store& store, const std::vector<std::string>& layer_bytes,
                               const std::string& arch = "amd64") {
  TestImage img;
  oci::ImageManifest m;
  m.media_type = std::string(oci::media::kOciManifest);
  nlohmann::ordered_json cfg;
  cfg["architecture"] = arch;
  cfg["os"] = "linux";
  cfg["rootfs"]["type"] = "layers";
  cfg["rootfs"]["diff_ids"] = nlohmann::ordered_json::array();
  for (const auto& bytes : layer_bytes) {
    auto d = oci::descriptor_for(oci::media::kOciLayerGzip, bytes);
    if (!oci::write_blob(store, d, bytes)) throw std::runtime_error("write layer");
    cfg["rootfs"]["diff_ids"].push_back(d.digest.str());
    img.layers.push_back(d);
    img.layer_bytes.push_back(bytes);
  }
  std::string cfg_bytes = cfg.dump();
  img.config = oci::descriptor_for(oci::media::kOciConfig, cfg_bytes);
  if (!oci::write_blob(store, img.config, cfg_bytes)) throw std::runtime_error("write config");
  m.config = img.config;
  m.layers = img.layers;
  img.manifest = oci::make_raw_manifest(m.media_type, oci::serialize(m));
  return img;
}

inline TestImage make_image(oci::Store& store, std::vector<std::size_t> layer_sizes, unsigned seed,
                            const std::string& arch = "amd64") {
  std::vector<std::string> layers;
  for (std::size_t i = 0; i < layer_sizes.size(); ++i)
    layers.push_back(random_bytes(layer_sizes[i], seed * 100 + static_cast<unsigned>(i)));
  return make_image_of(store, layers, arch);
}

// make_image, and its manifest put under `tag`: the manifest's digest.
inline oci::Digest push_image(oci::Store& store, const std::string& tag, std::vector<std::size_t> layer_sizes,
                              unsigned seed) {
  auto img = make_image(store, std::move(layer_sizes), seed);
  auto put = store.put_manifest(img.manifest, tag);
  if (!put) throw std::runtime_error("put manifest " + tag + ": " + put.error().message());
  return img.manifest.descriptor.digest;
}

// An index over one image per architecture; children are stored, the index
// is returned (the caller puts it with a tag).
inline oci::RawManifest make_index(oci::Store& store, const std::vector<std::string>& arches, unsigned seed) {
  oci::ImageIndex idx;
  idx.media_type = std::string(oci::media::kOciIndex);
  unsigned s = seed;
  for (const auto& arch : arches) {
    auto img = make_image(store, {1000, 5000}, s++, arch);
    if (!store.put_manifest(img.manifest, std::nullopt)) throw std::runtime_error("put child");
    auto d = img.manifest.descriptor;
    d.platform = oci::Platform{"linux", arch, "", ""};
    idx.manifests.push_back(d);
  }
  return oci::make_raw_manifest(idx.media_type, oci::serialize(idx));
}

}  // namespace strata::testing
