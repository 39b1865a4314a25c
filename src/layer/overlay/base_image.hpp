// A base image as the Debian side sees it: its manifest and config for one
// platform, and the filesystem metadata of its layers with the dpkg and apt
// state captured (status, status.d/ as distroless writes it, path filters,
// diversions, statoverrides, alternatives, extended_states, os-release).
// `strata resolve --base` and the overlay builder start here.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "layer/debian/package.hpp"
#include "layer/overlay/base_fs_cache.hpp"
#include "oci/image_fs.hpp"
#include "oci/store.hpp"

namespace strata::layer {

struct BaseImage {
  oci::Descriptor descriptor;  // the platform's image manifest (not the index)
  oci::ImageManifest manifest;
  oci::ImageConfig config;
  oci::ImageFilesystem fs;
};

// The image `ref` names in `store` for `platform` (an index resolved to the
// platform's manifest), with its config, checked to be for that platform.
struct BaseManifest {
  oci::Descriptor descriptor;  // the platform's image manifest (not the index)
  oci::ImageManifest manifest;
  oci::ImageConfig config;
  std::string where;  // the store and reference, for messages
};
Result<BaseManifest> load_base_manifest(oci::Store& store, std::string_view ref, const oci::Platform& platform);

// Loads `ref` from `store`, picking `platform` from an index. `needs` asks
// for more than the dpkg state: files to capture besides it, files to
// summarize (the overlay builder's needs, overlay_base_needs()). With a
// `cache`, the filesystem is taken from it when it can answer, and recorded
// in it when read from the layers.
Result<BaseImage> load_base_image(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                  oci::ImageFsOptions needs = {}, const BaseFsCache* cache = nullptr);
// The same from a manifest already loaded.
Result<BaseImage> load_base_image(oci::Store& store, BaseManifest manifest, oci::ImageFsOptions needs = {},
                                  const BaseFsCache* cache = nullptr);

// The packages the base's dpkg database counts as installed (status plus
// status.d/ stanzas; none for an image without dpkg state).
Result<std::vector<Package>> base_packages(const BaseImage& base);

// The paths load_base_image captures, for callers that load filesystems themselves.
std::vector<std::string> base_capture_patterns();

}  // namespace strata::layer
