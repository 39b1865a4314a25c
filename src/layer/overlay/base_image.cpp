#include "layer/overlay/base_image.hpp"

#include "layer/debian/dpkg_status.hpp"
#include "util/binary.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace {

namespace stdfs = std::filesystem;

stdfs::path g_fs_cache;  // cache_base_filesystems

constexpr std::uint32_t kFsCacheFormat = 3;

stdfs::path fs_cache_file(const oci::Digest& manifest) {
  return g_fs_cache / ("fs-" + std::to_string(kFsCacheFormat) + "-" + std::string(manifest.hex()));
}

constexpr std::string_view kFsMagic = "STRATAFS";

std::string encode_fs(const oci::ImageFilesystem& fs) {
  std::string out(kFsMagic);
  bin::Writer w(out);
  w.u32(kFsCacheFormat);
  w.u64(fs.layers());
  w.u32(static_cast<std::uint32_t>(fs.nodes().size()));
  for (const auto& [path, n] : fs.nodes()) {
    w.str(path);
    w.u8(static_cast<std::uint8_t>(n.type));
    w.u32(n.mode);
    w.u64(n.uid);
    w.u64(n.gid);
    w.u64(n.size);
    w.u64(static_cast<std::uint64_t>(n.mtime));
    w.str(n.link_target);
    w.u32(n.dev_major);
    w.u32(n.dev_minor);
    w.u64(n.layer);
    w.u8(static_cast<std::uint8_t>((n.content ? 1 : 0) | (n.summary ? 2 : 0)));
    if (n.content) w.str(*n.content);
    if (n.summary) w.str(*n.summary);
  }
  return out;
}

// The cached filesystem, when present, intact and capturing (and
// summarizing) everything `opts` asks for.
std::optional<oci::ImageFilesystem> fs_from_cache(const oci::Digest& manifest, const oci::ImageFsOptions& opts) {
  auto bytes = fs::read_file(fs_cache_file(manifest), std::uint64_t{1} << 30);
  if (!bytes || !bytes->starts_with(kFsMagic)) return std::nullopt;
  bin::Reader r(std::string_view(*bytes).substr(kFsMagic.size()));
  if (r.u32() != kFsCacheFormat) return std::nullopt;
  std::size_t layers = r.u64();
  std::map<std::string, oci::FsNode> nodes;
  for (std::uint32_t i = 0, count = r.count(54); i < count && !r.bad; ++i) {
    std::string path;
    oci::FsNode n;
    r.str(path);
    std::uint8_t type = r.u8();
    if (type > static_cast<std::uint8_t>(oci::TarEntryType::kFifo)) r.bad = true;
    n.type = static_cast<oci::TarEntryType>(type);
    n.mode = r.u32();
    n.uid = r.u64();
    n.gid = r.u64();
    n.size = r.u64();
    n.mtime = static_cast<std::int64_t>(r.u64());
    r.str(n.link_target);
    n.dev_major = r.u32();
    n.dev_minor = r.u32();
    n.layer = r.u64();
    std::uint8_t kept = r.u8();
    if (kept & 1) r.str(n.content.emplace());
    if (kept & 2) r.str(n.summary.emplace());
    bool regular = n.type == oci::TarEntryType::kRegular;
    bool captured = n.content || n.size > opts.max_capture_bytes || !opts.capture || !opts.capture(path);
    bool summarized = n.content || n.summary || n.size > opts.max_summarize_bytes || !opts.summarize ||
                      !opts.summarize_paths || !opts.summarize_paths(path);
    if (regular && !(captured && summarized)) return std::nullopt;  // cached for a caller that asked less
    nodes.emplace_hint(nodes.end(), std::move(path), std::move(n));
  }
  if (r.bad || !r.at_end()) return std::nullopt;  // damaged: load the layers again
  return oci::ImageFilesystem::from_nodes(std::move(nodes), layers);
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
    if (fs::make_dirs(g_fs_cache)) (void)fs::write_file_atomic(fs_cache_file(fetched.raw.descriptor.digest), encode_fs(fs));
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
