#include "oci/descriptor.hpp"

namespace strata::oci {

std::string Descriptor::ref_name() const {
  auto it = annotations.find(std::string(kRefNameAnnotation));
  return it == annotations.end() ? std::string() : it->second;
}

static Result<Platform> platform_from_json(const nlohmann::json& j, std::string_view where) {
  if (!j.is_object()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": platform is not an object");
  Platform p;
  auto str_field = [&](const char* k, std::string& out, bool required) -> Result<void> {
    auto it = j.find(k);
    if (it == j.end() || it->is_null()) {
      if (required) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": platform." + k + " is missing");
      return {};
    }
    if (!it->is_string()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": platform." + k + " is not a string");
    out = it->get<std::string>();
    return {};
  };
  STRATA_TRY_VOID(str_field("os", p.os, true));
  STRATA_TRY_VOID(str_field("architecture", p.architecture, true));
  STRATA_TRY_VOID(str_field("variant", p.variant, false));
  STRATA_TRY_VOID(str_field("os.version", p.os_version, false));
  return p;
}

Result<Descriptor> descriptor_from_json(const nlohmann::json& j, std::string_view where) {
  std::string w(where);
  if (!j.is_object()) return fail(ErrorCode::kInvalidArgument, w + ": descriptor is not an object");
  Descriptor d;
  auto mt = j.find("mediaType");
  if (mt == j.end() || !mt->is_string()) return fail(ErrorCode::kInvalidArgument, w + ": mediaType is missing or not a string");
  d.media_type = mt->get<std::string>();
  auto dg = j.find("digest");
  if (dg == j.end() || !dg->is_string()) return fail(ErrorCode::kInvalidArgument, w + ": digest is missing or not a string");
  STRATA_TRY(d.digest, with_context(Digest::parse(dg->get<std::string>()), w));
  auto sz = j.find("size");
  if (sz == j.end() || !sz->is_number_integer()) return fail(ErrorCode::kInvalidArgument, w + ": size is missing or not an integer");
  d.size = sz->get<std::int64_t>();
  if (d.size < 0) return fail(ErrorCode::kInvalidArgument, w + ": size is negative");
  if (auto u = j.find("urls"); u != j.end() && !u->is_null()) {
    if (!u->is_array()) return fail(ErrorCode::kInvalidArgument, w + ": urls is not an array");
    for (const auto& e : *u) {
      if (!e.is_string()) return fail(ErrorCode::kInvalidArgument, w + ": urls has a non-string entry");
      d.urls.push_back(e.get<std::string>());
    }
  }
  if (auto a = j.find("annotations"); a != j.end() && !a->is_null()) {
    if (!a->is_object()) return fail(ErrorCode::kInvalidArgument, w + ": annotations is not an object");
    for (const auto& [k, v] : a->items()) {
      if (!v.is_string()) return fail(ErrorCode::kInvalidArgument, w + ": annotation " + k + " is not a string");
      d.annotations[k] = v.get<std::string>();
    }
  }
  if (auto x = j.find("data"); x != j.end() && x->is_string()) d.data = x->get<std::string>();
  if (auto p = j.find("platform"); p != j.end() && !p->is_null()) {
    STRATA_TRY(auto plat, platform_from_json(*p, where));
    d.platform = std::move(plat);
  }
  if (auto at = j.find("artifactType"); at != j.end() && at->is_string()) d.artifact_type = at->get<std::string>();
  return d;
}

nlohmann::ordered_json descriptor_to_json(const Descriptor& d) {
  nlohmann::ordered_json j;
  j["mediaType"] = d.media_type;
  j["digest"] = d.digest.str();
  j["size"] = d.size;
  if (!d.urls.empty()) j["urls"] = d.urls;
  if (!d.annotations.empty()) {
    nlohmann::ordered_json a = nlohmann::ordered_json::object();
    for (const auto& [k, v] : d.annotations) a[k] = v;  // std::map: sorted keys
    j["annotations"] = a;
  }
  if (d.data) j["data"] = *d.data;
  if (d.platform) {
    nlohmann::ordered_json p;
    p["architecture"] = d.platform->architecture;
    p["os"] = d.platform->os;
    if (!d.platform->os_version.empty()) p["os.version"] = d.platform->os_version;
    if (!d.platform->variant.empty()) p["variant"] = d.platform->variant;
    j["platform"] = p;
  }
  if (d.artifact_type) j["artifactType"] = *d.artifact_type;
  return j;
}

Descriptor descriptor_for(std::string_view media_type, std::string_view bytes) {
  Descriptor d;
  d.media_type = std::string(media_type);
  d.digest = Digest::sha256_of(bytes);
  d.size = static_cast<std::int64_t>(bytes.size());
  return d;
}

}  // namespace strata::oci
