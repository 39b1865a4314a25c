#include "oci/manifest.hpp"

#include "oci/media_types.hpp"

namespace strata::oci {
namespace {

Result<nlohmann::json> parse_json(std::string_view bytes, std::string_view where, std::size_t limit) {
  if (bytes.size() > limit) {
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": document is " +
                                                 std::to_string(bytes.size()) + " bytes, over the limit of " +
                                                 std::to_string(limit));
  }
  auto j = nlohmann::json::parse(bytes, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": malformed JSON");
  if (!j.is_object()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": not a JSON object");
  return j;
}

Result<std::map<std::string, std::string>> annotations_of(const nlohmann::json& j, std::string_view where) {
  std::map<std::string, std::string> out;
  auto a = j.find("annotations");
  if (a == j.end() || a->is_null()) return out;
  if (!a->is_object()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": annotations is not an object");
  for (const auto& [k, v] : a->items()) {
    if (!v.is_string()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": annotation " + k + " is not a string");
    out[k] = v.get<std::string>();
  }
  return out;
}

std::optional<std::string> opt_string(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

}  // namespace

Result<std::string> sniff_manifest_media_type(std::string_view bytes, std::string_view where) {
  STRATA_TRY(auto j, parse_json(bytes, where, kMaxManifestBytes));
  if (auto mt = opt_string(j, "mediaType")) return *mt;
  if (j.contains("manifests")) return std::string(media::kOciIndex);
  if (j.contains("config") || j.contains("layers")) return std::string(media::kOciManifest);
  if (j.contains("fsLayers")) return std::string(media::kDockerSchema1);
  return fail(ErrorCode::kInvalidArgument, std::string(where) + ": not a manifest or index");
}

Result<ParsedManifest> parse_manifest(std::string_view bytes, std::string_view media_type,
                                      std::string_view where, std::size_t limit) {
  std::string w(where);
  STRATA_TRY(auto j, parse_json(bytes, where, limit));
  std::string declared = opt_string(j, "mediaType").value_or("");
  std::string given(media::strip_params(media_type));
  STRATA_TRY_VOID(media::refuse_schema1(declared, where));
  STRATA_TRY_VOID(media::refuse_schema1(given, where));
  if (!declared.empty() && !given.empty() && declared != given && given != "application/octet-stream") {
    return fail(ErrorCode::kInvalidArgument,
                w + ": document says mediaType " + declared + " but it was served as " + given);
  }
  std::string mt = !declared.empty() ? declared : given;
  if (mt.empty() || !media::is_manifest_or_index(mt)) {
    STRATA_TRY(auto sniffed, sniff_manifest_media_type(bytes, where));
    STRATA_TRY_VOID(media::refuse_schema1(sniffed, where));
    mt = sniffed;
  }
  auto sv = j.find("schemaVersion");
  if (sv == j.end() || !sv->is_number_integer() || sv->get<int>() != 2) {
    return fail(ErrorCode::kInvalidArgument, w + ": schemaVersion must be 2");
  }
  STRATA_TRY(auto ann, annotations_of(j, where));
  std::optional<Descriptor> subject;
  if (auto s = j.find("subject"); s != j.end() && !s->is_null()) {
    STRATA_TRY(auto d, descriptor_from_json(*s, w + " subject"));
    subject = std::move(d);
  }
  if (media::is_index(mt)) {
    ImageIndex idx;
    idx.media_type = mt;
    idx.artifact_type = opt_string(j, "artifactType");
    idx.annotations = std::move(ann);
    idx.subject = std::move(subject);
    auto ms = j.find("manifests");
    if (ms == j.end() || !ms->is_array()) return fail(ErrorCode::kInvalidArgument, w + ": manifests is missing or not an array");
    std::size_t i = 0;
    for (const auto& e : *ms) {
      STRATA_TRY(auto d, descriptor_from_json(e, w + " manifests[" + std::to_string(i++) + "]"));
      idx.manifests.push_back(std::move(d));
    }
    return ParsedManifest(std::move(idx));
  }
  if (!media::is_image_manifest(mt)) {
    return fail(ErrorCode::kUnsupported, w + ": unsupported manifest media type " + mt);
  }
  ImageManifest m;
  m.media_type = mt;
  m.artifact_type = opt_string(j, "artifactType");
  m.annotations = std::move(ann);
  m.subject = std::move(subject);
  auto cfg = j.find("config");
  if (cfg == j.end()) return fail(ErrorCode::kInvalidArgument, w + ": config is missing");
  STRATA_TRY(m.config, descriptor_from_json(*cfg, w + " config"));
  if (auto ls = j.find("layers"); ls != j.end() && !ls->is_null()) {
    if (!ls->is_array()) return fail(ErrorCode::kInvalidArgument, w + ": layers is not an array");
    std::size_t i = 0;
    for (const auto& e : *ls) {
      STRATA_TRY(auto d, descriptor_from_json(e, w + " layers[" + std::to_string(i++) + "]"));
      m.layers.push_back(std::move(d));
    }
  }
  return ParsedManifest(std::move(m));
}

static nlohmann::ordered_json annotations_json(const std::map<std::string, std::string>& a) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : a) j[k] = v;
  return j;
}

std::string dump_json(const nlohmann::ordered_json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string serialize(const ImageManifest& m) {
  nlohmann::ordered_json j;
  j["schemaVersion"] = 2;
  j["mediaType"] = m.media_type;
  if (m.artifact_type) j["artifactType"] = *m.artifact_type;
  j["config"] = descriptor_to_json(m.config);
  j["layers"] = nlohmann::ordered_json::array();
  for (const auto& l : m.layers) j["layers"].push_back(descriptor_to_json(l));
  if (m.subject) j["subject"] = descriptor_to_json(*m.subject);
  if (!m.annotations.empty()) j["annotations"] = annotations_json(m.annotations);
  return dump_json(j);
}

std::string serialize(const ImageIndex& idx) {
  nlohmann::ordered_json j;
  j["schemaVersion"] = 2;
  j["mediaType"] = idx.media_type;
  if (idx.artifact_type) j["artifactType"] = *idx.artifact_type;
  j["manifests"] = nlohmann::ordered_json::array();
  for (const auto& d : idx.manifests) j["manifests"].push_back(descriptor_to_json(d));
  if (idx.subject) j["subject"] = descriptor_to_json(*idx.subject);
  if (!idx.annotations.empty()) j["annotations"] = annotations_json(idx.annotations);
  return dump_json(j);
}

RawManifest make_raw_manifest(std::string media_type, std::string bytes) {
  RawManifest r;
  r.descriptor = descriptor_for(media_type, bytes);
  r.bytes = std::move(bytes);
  return r;
}

std::vector<Descriptor> select_platform(const ImageIndex& idx, const Platform& platform) {
  std::vector<Descriptor> out;
  for (const auto& d : idx.manifests) {
    if (d.platform && platform_matches(platform, *d.platform)) out.push_back(d);
  }
  return out;
}

Result<ImageConfig> parse_config(std::string bytes, std::string_view where) {
  if (bytes.size() > kMaxConfigBytes) {
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": config is too large");
  }
  auto j = nlohmann::ordered_json::parse(bytes, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": malformed config JSON");
  }
  auto rootfs = j.find("rootfs");
  if (rootfs != j.end() && rootfs->is_object()) {
    auto type = rootfs->find("type");
    if (type != rootfs->end() && (!type->is_string() || type->get<std::string>() != "layers")) {
      return fail(ErrorCode::kInvalidArgument, std::string(where) + ": rootfs.type must be \"layers\"");
    }
  }
  return ImageConfig{std::move(j), std::move(bytes)};
}

Platform ImageConfig::platform() const {
  // Configs come from anywhere: a field of the wrong type reads as absent.
  auto text = [&](const char* key) {
    auto it = json.find(key);
    return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  Platform p;
  p.os = text("os");
  p.architecture = text("architecture");
  p.variant = text("variant");
  p.os_version = text("os.version");
  return p;
}

std::vector<std::string> ImageConfig::diff_ids() const {
  std::vector<std::string> out;
  auto r = json.find("rootfs");
  if (r == json.end() || !r->is_object()) return out;
  auto d = r->find("diff_ids");
  if (d == r->end() || !d->is_array()) return out;
  for (const auto& e : *d)
    if (e.is_string()) out.push_back(e.get<std::string>());
  return out;
}

std::vector<std::string> ImageConfig::env() const {
  std::vector<std::string> out;
  auto c = json.find("config");
  if (c == json.end() || !c->is_object()) return out;
  auto e = c->find("Env");
  if (e == c->end() || !e->is_array()) return out;
  for (const auto& v : *e)
    if (v.is_string()) out.push_back(v.get<std::string>());
  return out;
}

std::map<std::string, std::string> ImageConfig::labels() const {
  std::map<std::string, std::string> out;
  auto c = json.find("config");
  if (c == json.end() || !c->is_object()) return out;
  auto l = c->find("Labels");
  if (l == c->end() || !l->is_object()) return out;
  for (const auto& [k, v] : l->items())
    if (v.is_string()) out[k] = v.get<std::string>();
  return out;
}

}  // namespace strata::oci
