// The last step of every image strata makes: one more layer on top of a
// config (a base's, or a fresh one), written as a config blob and a manifest.
// The config gains the layer's diff_id and a history entry (created =
// `created`, when given, else no timestamps); the manifest lists the lower
// layers, then the new one, with the annotations given.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oci/descriptor.hpp"
#include "oci/store.hpp"

namespace strata::oci {

struct LayerOnTop {
  nlohmann::ordered_json config;         // the base's config, or a fresh one
  std::vector<Descriptor> lower_layers;  // the base's layers
  Descriptor layer;
  Digest diff_id;
  std::optional<std::int64_t> created;  // seconds since the epoch
  std::string created_by;
  std::map<std::string, std::string> annotations;
};

struct AppendedImage {
  Descriptor config;
  Descriptor manifest;
};

// Writes the config blob, then the manifest (tagged `tag` when given).
Result<AppendedImage> append_layer(Store& dest, LayerOnTop image, std::optional<std::string_view> tag);

// Several layers at once (a toolchain layer per runtime over an overlay):
// one config and one manifest, a history entry per layer.
struct NewLayer {
  Descriptor layer;
  Digest diff_id;
  std::string created_by;
};
struct LayersOnTop {
  nlohmann::ordered_json config;
  std::vector<Descriptor> lower_layers;
  std::vector<NewLayer> layers;
  std::optional<std::int64_t> created;
  std::map<std::string, std::string> annotations;
};
Result<AppendedImage> append_layers(Store& dest, LayersOnTop image, std::optional<std::string_view> tag);

}  // namespace strata::oci
