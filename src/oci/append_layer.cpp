#include "oci/append_layer.hpp"

#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "util/strings.hpp"

namespace strata::oci {

Result<AppendedImage> append_layers(Store& dest, LayersOnTop image, std::optional<std::string_view> tag) {
  nlohmann::ordered_json& config = image.config;
  if (image.created) config["created"] = str::rfc3339(*image.created);
  config["rootfs"]["type"] = "layers";
  if (!config.contains("history")) config["history"] = nlohmann::ordered_json::array();
  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.layers = std::move(image.lower_layers);
  for (auto& l : image.layers) {
    nlohmann::ordered_json history = nlohmann::ordered_json::object();
    if (image.created) history["created"] = config["created"];
    history["created_by"] = l.created_by;
    config["rootfs"]["diff_ids"].push_back(l.diff_id.str());
    config["history"].push_back(history);
    m.layers.push_back(std::move(l.layer));
  }
  std::string config_bytes = dump_json(config);
  AppendedImage out;
  out.config = descriptor_for(media::kOciConfig, config_bytes);
  STRATA_TRY_VOID(write_blob(dest, out.config, config_bytes));
  m.config = out.config;
  m.annotations = std::move(image.annotations);
  auto raw = make_raw_manifest(std::string(media::kOciManifest), serialize(m));
  out.manifest = raw.descriptor;
  STRATA_TRY_VOID(dest.put_manifest(raw, tag));
  return out;
}

Result<AppendedImage> append_layer(Store& dest, LayerOnTop image, std::optional<std::string_view> tag) {
  return append_layers(dest,
                       {std::move(image.config), std::move(image.lower_layers),
                        {{std::move(image.layer), std::move(image.diff_id), std::move(image.created_by)}},
                        image.created, std::move(image.annotations)},
                       tag);
}

}  // namespace strata::oci
