#include "oci/append_layer.hpp"

#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "util/strings.hpp"

namespace strata::oci {

Result<AppendedImage> append_layer(Store& dest, LayerOnTop image, std::optional<std::string_view> tag) {
  nlohmann::ordered_json& config = image.config;
  nlohmann::ordered_json history = nlohmann::ordered_json::object();
  if (image.created) {
    config["created"] = str::rfc3339(*image.created);
    history["created"] = config["created"];
  }
  history["created_by"] = image.created_by;
  config["rootfs"]["type"] = "layers";
  config["rootfs"]["diff_ids"].push_back(image.diff_id.str());
  if (!config.contains("history")) config["history"] = nlohmann::ordered_json::array();
  config["history"].push_back(history);
  std::string config_bytes = dump_json(config);
  AppendedImage out;
  out.config = descriptor_for(media::kOciConfig, config_bytes);
  STRATA_TRY_VOID(write_blob(dest, out.config, config_bytes));

  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.config = out.config;
  m.layers = std::move(image.lower_layers);
  m.layers.push_back(image.layer);
  m.annotations = std::move(image.annotations);
  auto raw = make_raw_manifest(std::string(media::kOciManifest), serialize(m));
  out.manifest = raw.descriptor;
  STRATA_TRY_VOID(dest.put_manifest(raw, tag));
  return out;
}

}  // namespace strata::oci
