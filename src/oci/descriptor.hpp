// Content descriptors: what a manifest says about a blob or a child manifest.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oci/digest.hpp"
#include "oci/platform.hpp"

namespace strata::oci {

struct Descriptor {
  std::string media_type;
  Digest digest = Digest::sha256_of("");
  std::int64_t size = 0;
  std::vector<std::string> urls;
  std::map<std::string, std::string> annotations;
  std::optional<std::string> data;  // base64, as found
  std::optional<Platform> platform;
  std::optional<std::string> artifact_type;

  // The annotation org.opencontainers.image.ref.name, or "".
  std::string ref_name() const;
};

// Parses and validates a descriptor object (`where` names it in errors).
Result<Descriptor> descriptor_from_json(const nlohmann::json& j, std::string_view where);
// Serialises with the field order of image-spec's Go structs (mediaType,
// digest, size, urls, annotations, data, platform, artifactType).
nlohmann::ordered_json descriptor_to_json(const Descriptor& d);

// Descriptor for an exact byte string.
Descriptor descriptor_for(std::string_view media_type, std::string_view bytes);

inline constexpr std::string_view kRefNameAnnotation = "org.opencontainers.image.ref.name";

}  // namespace strata::oci
