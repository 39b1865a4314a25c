#include "layer/overlay/base_image.hpp"

#include "layer/debian/dpkg_status.hpp"

namespace strata::layer {

std::vector<std::string> base_capture_patterns() {
  return {"var/lib/dpkg/status",       "var/lib/dpkg/status.d/*",  "var/lib/dpkg/diversions",
          "var/lib/dpkg/statoverride", "var/lib/dpkg/alternatives/*", "etc/dpkg/dpkg.cfg.d/*",
          "var/lib/apt/extended_states", "etc/os-release",         "usr/lib/os-release",
          "var/lib/dpkg/arch",         "var/lib/dpkg/triggers/*"};
}

Result<BaseManifest> load_base_manifest(oci::Store& store, std::string_view ref, const oci::Platform& platform) {
  std::string where = store.describe() + (ref.empty() ? "" : ":" + std::string(ref));
  STRATA_TRY(auto fetched, oci::fetch_platform_manifest(store, ref, platform, where));
  auto& m = std::get<oci::ImageManifest>(fetched.parsed);
  STRATA_TRY(auto cfg_bytes, oci::read_blob(store, m.config));
  STRATA_TRY(auto config, oci::parse_config(std::move(cfg_bytes), where + " config"));
  if (auto p = config.platform(); !p.architecture.empty() && !oci::platform_matches(platform, p)) {
    return fail(ErrorCode::kInvalidArgument, where + " is a " + p.str() + " image, not " + platform.str());
  }
  return BaseManifest{fetched.raw.descriptor, std::move(m), std::move(config), std::move(where)};
}

Result<BaseImage> load_base_image(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                  oci::ImageFsOptions needs, const BaseFsCache* cache) {
  STRATA_TRY(BaseManifest m, load_base_manifest(store, ref, platform));
  return load_base_image(store, std::move(m), std::move(needs), cache);
}

Result<BaseImage> load_base_image(oci::Store& store, BaseManifest m, oci::ImageFsOptions needs,
                                  const BaseFsCache* cache) {
  oci::ImageFsOptions opts = std::move(needs);
  opts.capture = [standard = oci::capture_paths(base_capture_patterns()),
                  extra = std::move(opts.capture)](std::string_view p) { return standard(p) || (extra && extra(p)); };
  if (cache) {
    if (auto cached = cache->find(m.descriptor.digest, opts)) {
      return BaseImage{m.descriptor, std::move(m.manifest), std::move(m.config), std::move(*cached)};
    }
  }
  STRATA_TRY(auto fs, with_context(oci::ImageFilesystem::load(store, m.manifest, opts), m.where));
  if (cache && m.descriptor.digest.verifiable()) cache->remember(m.descriptor.digest, fs);
  return BaseImage{m.descriptor, std::move(m.manifest), std::move(m.config), std::move(fs)};
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
