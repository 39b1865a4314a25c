#include "oci/docker_archive.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>

#include "oci/media_types.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {
namespace stdfs = std::filesystem;

bool safe_relative(std::string_view name) {
  if (name.empty() || name.front() == '/') return false;
  for (auto part : str::split(name, '/'))
    if (part == "..") return false;
  return name.find('\0') == std::string_view::npos;
}

std::string strip_dot_slash(std::string name) {
  while (name.starts_with("./")) name.erase(0, 2);
  return name;
}

std::string familiar_name(const DockerReference& ref) {
  std::string name = ref.registry == kDefaultRegistry
                         ? (ref.repository.starts_with("library/") ? ref.repository.substr(8) : ref.repository)
                         : ref.name();
  return name + ":" + ref.tag.value_or(std::string(kDefaultTag));
}

Result<std::vector<DockerArchiveImage>> parse_docker_manifest_json(std::string_view text, const std::string& where) {
  if (text.size() > kMaxManifestBytes) {
    return fail(ErrorCode::kInvalidArgument, where + ": manifest.json is larger than " +
                                                 std::to_string(kMaxManifestBytes) + " bytes");
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_array()) {
    return fail(ErrorCode::kInvalidArgument, where + ": manifest.json is not a JSON array");
  }
  auto member = [&](const nlohmann::json& v) -> Result<std::string> {
    if (!v.is_string() || !safe_relative(strip_dot_slash(v.get<std::string>()))) {
      return fail(ErrorCode::kInvalidArgument, where + ": manifest.json names an invalid member");
    }
    return strip_dot_slash(v.get<std::string>());
  };
  std::vector<DockerArchiveImage> images;
  for (const auto& img : j) {
    if (!img.is_object() || !img.contains("Config") || !img.contains("Layers") || !img["Layers"].is_array()) {
      return fail(ErrorCode::kInvalidArgument, where + ": manifest.json entry lacks Config or Layers");
    }
    DockerArchiveImage out;
    STRATA_TRY(out.config, member(img["Config"]));
    for (const auto& l : img["Layers"]) {
      STRATA_TRY(auto layer, member(l));
      out.layers.push_back(std::move(layer));
    }
    if (auto tags = img.find("RepoTags"); tags != img.end() && tags->is_array()) {
      for (const auto& t : *tags)
        if (t.is_string()) out.repo_tags.push_back(t.get<std::string>());
    }
    images.push_back(std::move(out));
  }
  return images;
}

Result<void> import_docker_manifest_json(const stdfs::path& staging, LayoutStore& layout, const std::string& where) {
  STRATA_TRY(auto text, fs::read_file(staging / "manifest.json", kMaxManifestBytes));
  STRATA_TRY(auto images, parse_docker_manifest_json(text, where));
  auto member = [&](const std::string& name) -> Result<stdfs::path> {
    stdfs::path p = staging / name;
    if (!stdfs::is_regular_file(p)) {
      return fail(ErrorCode::kInvalidArgument, where + ": manifest.json names missing member " + name);
    }
    return p;
  };
  // Moves a member into the layout as a blob, returning its descriptor.
  auto add_blob = [&](const stdfs::path& p, std::string media_type) -> Result<Descriptor> {
    Hasher h;
    std::uint64_t size = 0;
    unsigned char magic[4] = {0, 0, 0, 0};
    STRATA_TRY_VOID(fs::read_chunks(p, [&](std::string_view piece) -> Result<void> {
      if (size == 0) std::memcpy(magic, piece.data(), std::min<std::size_t>(4, piece.size()));
      h.update(piece);
      size += piece.size();
      return {};
    }));
    if (media_type.empty()) {
      if (magic[0] == 0x1f && magic[1] == 0x8b) media_type = std::string(media::kDockerLayerGzip);
      else if (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd)
        media_type = std::string(media::kOciLayerZstd);
      else media_type = std::string(media::kDockerLayer);
    }
    Descriptor d;
    d.media_type = media_type;
    d.digest = Digest::from_hex(HashAlgorithm::kSha256, h.finish_hex());
    d.size = static_cast<std::int64_t>(size);
    auto dest = layout.blob_path(d.digest);
    STRATA_TRY_VOID(fs::make_dirs(dest.parent_path()));
    std::error_code ec;
    stdfs::copy_file(p, dest, stdfs::copy_options::skip_existing, ec);
    if (ec) return fail(ErrorCode::kIoError, where + ": cannot stage " + p.string() + ": " + ec.message());
    return d;
  };
  for (const auto& img : images) {
    STRATA_TRY(auto cfg_path, member(img.config));
    STRATA_TRY(auto cfg, add_blob(cfg_path, std::string(media::kDockerConfig)));
    ImageManifest m;
    m.config = cfg;
    bool zstd = false;
    for (const auto& l : img.layers) {
      STRATA_TRY(auto lp, member(l));
      STRATA_TRY(auto ld, add_blob(lp, ""));
      zstd = zstd || ld.media_type == media::kOciLayerZstd;
      m.layers.push_back(ld);
    }
    // Docker has no zstd layer type: such images get an OCI manifest.
    if (zstd) {
      m.media_type = std::string(media::kOciManifest);
      m.config.media_type = std::string(media::kOciConfig);
      for (auto& l : m.layers) {
        auto c = media::layer_compression(l.media_type);
        l.media_type = std::string(c == media::Compression::kGzip ? media::kOciLayerGzip
                                   : c == media::Compression::kZstd ? media::kOciLayerZstd
                                                                    : media::kOciLayer);
      }
    } else {
      m.media_type = std::string(media::kDockerManifest);
    }
    auto raw = make_raw_manifest(m.media_type, serialize(m));
    bool tagged = false;
    for (const auto& t : img.repo_tags) {
      auto r = parse_docker_reference(t);
      if (!r) continue;
      STRATA_TRY_VOID(layout.put_manifest(raw, r->str()));
      tagged = true;
    }
    if (!tagged) STRATA_TRY_VOID(layout.put_manifest(raw, std::nullopt));
  }
  return {};
}

Result<void> write_docker_manifest_json(LayoutStore& layout, const stdfs::path& staging, const std::string& where) {
  STRATA_TRY(auto entries, layout.entries());
  nlohmann::ordered_json manifest_json = nlohmann::ordered_json::array();
  nlohmann::ordered_json repositories = nlohmann::ordered_json::object();
  // One manifest.json entry per image, with every tag that names it.
  std::map<Digest, std::vector<DockerReference>> tags;
  std::vector<Descriptor> images;
  for (const auto& e : entries) {
    if (!media::is_image_manifest(e.media_type)) {
      return fail(ErrorCode::kUnsupported, where + ": a docker-archive holds single-platform images, not " +
                                               e.media_type + "; copy one platform (--platform) instead of --all");
    }
    if (!tags.contains(e.digest)) images.push_back(e);
    auto& list = tags[e.digest];
    if (auto name = e.ref_name(); !name.empty()) {
      if (auto r = parse_docker_reference(name)) list.push_back(*r);
    }
  }
  for (const auto& e : images) {
    STRATA_TRY(auto raw, layout.get_manifest(e.digest.str()));
    STRATA_TRY(auto parsed, parse_manifest(raw.bytes, raw.descriptor.media_type, where));
    const auto& m = std::get<ImageManifest>(parsed);
    nlohmann::ordered_json entry;
    entry["Config"] = "blobs/" + std::string(m.config.digest.algorithm()) + "/" + std::string(m.config.digest.hex());
    nlohmann::ordered_json repo_tags = nlohmann::ordered_json::array();
    for (const auto& r : tags[e.digest]) repo_tags.push_back(familiar_name(r));
    entry["RepoTags"] = repo_tags;
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const auto& l : m.layers)
      layers.push_back("blobs/" + std::string(l.digest.algorithm()) + "/" + std::string(l.digest.hex()));
    entry["Layers"] = layers;
    manifest_json.push_back(entry);
    if (!m.layers.empty()) {
      for (const auto& r : tags[e.digest]) {
        std::string fam = familiar_name(r);
        auto colon = fam.rfind(':');
        repositories[fam.substr(0, colon)][fam.substr(colon + 1)] = std::string(m.layers.back().digest.hex());
      }
    }
  }
  std::string manifest_text = dump_json(manifest_json);
  if (manifest_text.size() > kMaxManifestBytes) {  // what import_docker_manifest_json reads
    return fail(ErrorCode::kInvalidArgument, where + ": manifest.json would be " +
                                                 std::to_string(manifest_text.size()) + " bytes, over the " +
                                                 std::to_string(kMaxManifestBytes) +
                                                 "-byte limit it is read back with; split the images over archives");
  }
  STRATA_TRY_VOID(fs::write_file_atomic(staging / "manifest.json", manifest_text));
  return fs::write_file_atomic(staging / "repositories", dump_json(repositories));
}

}  // namespace strata::oci
