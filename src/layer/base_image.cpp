#include "layer/base_image.hpp"

#include <nlohmann/json.hpp>

#include "layer/dpkg_status.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace {

namespace stdfs = std::filesystem;

stdfs::path g_fs_cache;  // cache_base_filesystems

constexpr int kFsCacheFormat = 2;

stdfs::path fs_cache_file(const oci::Digest& manifest) {
  return g_fs_cache / ("fs-" + std::to_string(kFsCacheFormat) + "-" + std::string(manifest.hex()) + ".msgpack");
}

nlohmann::json optional_bytes(const std::optional<std::string>& s) {
  if (!s) return nullptr;
  return nlohmann::json::binary(std::vector<std::uint8_t>(s->begin(), s->end()));
}

std::optional<std::string> optional_bytes(const nlohmann::json& j) {
  if (!j.is_binary()) return std::nullopt;
  return std::string(j.get_binary().begin(), j.get_binary().end());
}

std::string fs_to_json(const oci::ImageFilesystem& fs) {
  nlohmann::json nodes = nlohmann::json::array();
  for (const auto& [path, n] : fs.nodes()) {
    nodes.push_back({path, static_cast<int>(n.type), n.mode, n.uid, n.gid, n.size, n.mtime, n.link_target,
                     n.dev_major, n.dev_minor, optional_bytes(n.content), n.layer, optional_bytes(n.summary)});
  }
  // MessagePack: paths, targets and captured content are bytes, not UTF-8.
  nlohmann::json j{{"layers", fs.layers()}, {"nodes", std::move(nodes)}};
  std::vector<std::uint8_t> out = nlohmann::json::to_msgpack(j);
  return std::string(out.begin(), out.end());
}

// The cached filesystem, when present, readable and capturing (and
// summarizing) everything `opts` asks for.
std::optional<oci::ImageFilesystem> fs_from_cache(const oci::Digest& manifest, const oci::ImageFsOptions& opts) {
  auto text = fs::read_file(fs_cache_file(manifest), std::uint64_t{1} << 30);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::from_msgpack(*text, true, false);
  if (j.is_discarded()) return std::nullopt;
  try {
    std::map<std::string, oci::FsNode> nodes;
    for (const auto& e : j.at("nodes")) {
      oci::FsNode n;
      n.type = static_cast<oci::TarEntryType>(e.at(1).get<int>());
      n.mode = e.at(2);
      n.uid = e.at(3);
      n.gid = e.at(4);
      n.size = e.at(5);
      n.mtime = e.at(6);
      n.link_target = e.at(7);
      n.dev_major = e.at(8);
      n.dev_minor = e.at(9);
      n.content = optional_bytes(e.at(10));
      n.layer = e.at(11);
      n.summary = optional_bytes(e.at(12));
      std::string path = e.at(0);
      bool regular = n.type == oci::TarEntryType::kRegular;
      bool captured = n.content || n.size > opts.max_capture_bytes || !opts.capture || !opts.capture(path);
      bool summarized = n.content || n.summary || n.size > opts.max_summarize_bytes || !opts.summarize ||
                        !opts.summarize_paths || !opts.summarize_paths(path);
      if (regular && !(captured && summarized)) return std::nullopt;  // cached for a caller that asked less
      nodes.emplace(std::move(path), std::move(n));
    }
    return oci::ImageFilesystem::from_nodes(std::move(nodes), j.at("layers").get<std::size_t>());
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

}  // namespace

void cache_base_filesystems(std::filesystem::path dir) { g_fs_cache = std::move(dir); }

std::vector<std::string> base_capture_patterns() {
  return {"var/lib/dpkg/status",       "var/lib/dpkg/status.d/*",  "var/lib/dpkg/diversions",
          "var/lib/dpkg/statoverride", "var/lib/dpkg/alternatives/*", "etc/dpkg/dpkg.cfg.d/*",
          "var/lib/apt/extended_states", "etc/os-release",         "usr/lib/os-release",
          "var/lib/dpkg/arch"};
}

Result<BaseImage> load_base_image(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                  oci::ImageFsOptions needs) {
  STRATA_TRY(auto fetched, oci::fetch_manifest(store, ref));
  std::string where = store.describe() + (ref.empty() ? "" : ":" + std::string(ref));
  if (auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed)) {
    auto matches = oci::select_platform(*idx, platform);
    if (matches.empty()) {
      return fail(ErrorCode::kNotFound, where + " has no image for platform " + platform.str());
    }
    STRATA_TRY(fetched, oci::fetch_manifest(store, matches.front().digest.str()));
  }
  auto* m = std::get_if<oci::ImageManifest>(&fetched.parsed);
  if (!m) return fail(ErrorCode::kInvalidArgument, where + ": nested index without an image for " + platform.str());
  STRATA_TRY(auto cfg_bytes, oci::read_blob(store, m->config));
  STRATA_TRY(auto config, oci::parse_config(std::move(cfg_bytes), where + " config"));
  if (auto p = config.platform(); !p.architecture.empty() && !oci::platform_matches(platform, p)) {
    return fail(ErrorCode::kInvalidArgument, where + " is a " + p.str() + " image, not " + platform.str());
  }
  oci::ImageFsOptions opts = std::move(needs);
  opts.capture = [standard = oci::capture_paths(base_capture_patterns()),
                  extra = std::move(opts.capture)](std::string_view p) { return standard(p) || (extra && extra(p)); };
  if (!g_fs_cache.empty()) {
    if (auto cached = fs_from_cache(fetched.raw.descriptor.digest, opts)) {
      return BaseImage{fetched.raw.descriptor, *m, std::move(config), std::move(*cached)};
    }
  }
  STRATA_TRY(auto fs, with_context(oci::ImageFilesystem::load(store, *m, opts), where));
  if (!g_fs_cache.empty() && fetched.raw.descriptor.digest.verifiable()) {
    // Best effort: a build without the cache is only slower.
    if (fs::make_dirs(g_fs_cache)) (void)fs::write_file_atomic(fs_cache_file(fetched.raw.descriptor.digest), fs_to_json(fs));
  }
  BaseImage base{fetched.raw.descriptor, *m, std::move(config), std::move(fs)};
  return base;
}

Result<std::vector<Package>> base_packages(const BaseImage& base) {
  StatusFile status{"/var/lib/dpkg/status", ""};
  if (base.fs.exists("var/lib/dpkg/status")) {
    STRATA_TRY(status.contents, base.fs.read_small_file("var/lib/dpkg/status"));
  }
  std::vector<StatusFile> status_d;
  if (auto names = base.fs.list("var/lib/dpkg/status.d")) {
    for (const auto& n : *names) {
      if (n.ends_with(".md5sums")) continue;  // distroless keeps md5sums beside the stanzas
      std::string path = "var/lib/dpkg/status.d/" + n;
      auto text = base.fs.read_small_file(path);
      if (!text) continue;  // a directory or an uncaptured oversize file
      status_d.push_back(StatusFile{"/" + path, std::move(*text)});
    }
  }
  return read_dpkg_status(status, status_d);
}

}  // namespace strata::layer
