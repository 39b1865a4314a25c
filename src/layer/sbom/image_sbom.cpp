#include "layer/sbom/image_sbom.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "layer/debian/dpkg_status.hpp"
#include "layer/debian/dep5.hpp"
#include "layer/toolchain/toolchain_layer.hpp"
#include "oci/image_fs.hpp"
#include "oci/store.hpp"
#include "util/strings.hpp"

namespace strata::layer::sbom {
namespace {

std::string unquote(std::string_view v) {
  v = str::trim(v);
  if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front()) v = v.substr(1, v.size() - 2);
  return std::string(v);
}

void read_os_release(const oci::ImageFilesystem& fs, ImageSbom& out) {
  for (std::string_view path : {"etc/os-release", "usr/lib/os-release"}) {
    auto text = fs.read_small_file(path);
    if (!text) continue;
    for (auto line : str::split(*text, '\n')) {
      auto eq = line.find('=');
      if (eq == std::string_view::npos) continue;
      auto key = str::trim(line.substr(0, eq));
      auto value = unquote(line.substr(eq + 1));
      if (key == "ID") out.distro_id = value;
      else if (key == "VERSION_ID") out.distro_version = value;
      else if (key == "VERSION_CODENAME") out.distro_codename = value;
    }
    return;
  }
}

// The layer that last wrote `path` (not following a final symlink), if any.
std::optional<std::size_t> layer_of(const oci::ImageFilesystem& fs, std::string_view path) {
  auto node = fs.lookup(path, oci::ImageFilesystem::Follow::kNo);
  if (!node) return std::nullopt;
  return (*node)->layer;
}

// The toolchain layers the manifest's annotations describe
// (layer/toolchain's ToolchainLayer::annotation: tool, release, source,
// archives with url and digest, layer).
std::vector<SbomToolchain> toolchains_of(const oci::ImageManifest& m) {
  constexpr std::string_view kPrefix = toolchain::kAnnotationPrefix;
  std::vector<SbomToolchain> out;
  std::map<std::string, std::size_t> layer_at;  // digest → index, once
  for (std::size_t i = 0; i < m.layers.size(); ++i) layer_at.emplace(m.layers[i].digest.str(), i);
  std::set<std::pair<std::string, std::string>> seen;  // one package per tool and release
  auto is_hex = [](const std::string& h, std::size_t n) {
    return h.size() == n && h.find_first_not_of("0123456789abcdef") == std::string::npos;
  };
  for (const auto& [key, value] : m.annotations) {
    if (!key.starts_with(kPrefix)) continue;
    auto j = nlohmann::json::parse(value, nullptr, false);
    if (!j.is_object()) continue;
    auto text = [&](const char* k) { return j.contains(k) && j[k].is_string() ? j[k].get<std::string>() : std::string(); };
    SbomToolchain t{text("tool"), text("release"), text("source"), {}, 0};
    auto at = layer_at.find(text("layer"));
    if (t.tool.empty() || t.version.empty() || at == layer_at.end() || !seen.emplace(t.tool, t.version).second) continue;
    t.layer = at->second;
    if (j.contains("archives") && j["archives"].is_array()) {
      for (const auto& a : j["archives"]) {
        if (!a.is_object() || !a.contains("url") || !a["url"].is_string() || !a.contains("digest") || !a["digest"].is_string())
          continue;
        std::string digest = a["digest"];
        auto colon = digest.find(':');
        if (colon == std::string::npos) continue;
        std::string alg = digest.substr(0, colon), hex = digest.substr(colon + 1);
        if (!(alg == "sha256" && is_hex(hex, 64)) && !(alg == "sha512" && is_hex(hex, 128))) continue;
        t.archives.push_back({a["url"], alg, hex});
      }
    }
    out.push_back(std::move(t));
  }
  std::sort(out.begin(), out.end(), [](const SbomToolchain& a, const SbomToolchain& b) {
    return std::tie(a.tool, a.version) < std::tie(b.tool, b.version);
  });
  return out;
}

// The manifest's layers with the config's diff_ids, refused when the two
// do not name as many.
Result<std::vector<SbomLayer>> layers_of(const oci::ImageManifest& manifest, const oci::ImageConfig& config,
                                         std::string_view where) {
  auto diff_ids = config.diff_ids();
  if (diff_ids.size() != manifest.layers.size())
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": the config names " + std::to_string(diff_ids.size()) +
                                                 " layers (rootfs.diff_ids), the manifest " +
                                                 std::to_string(manifest.layers.size()));
  std::vector<SbomLayer> out;
  for (std::size_t i = 0; i < manifest.layers.size(); ++i) out.push_back({manifest.layers[i], diff_ids[i]});
  return out;
}

}  // namespace

std::optional<std::string> sbom_time(std::string_view t) {
  int y, mo, d, h, mi, s;
  if (t.size() < 20 || std::sscanf(std::string(t.substr(0, 19)).c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &y, &mo, &d, &h, &mi, &s) != 6)
    return std::nullopt;
  std::string_view rest = t.substr(19);
  if (rest.starts_with('.')) {
    std::size_t i = 1;
    while (i < rest.size() && rest[i] >= '0' && rest[i] <= '9') ++i;
    rest = rest.substr(i);
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 60 || h < 0 || mi < 0 || s < 0)
    return std::nullopt;
  long offset = 0;
  if (rest == "Z" || rest == "z") {
  } else if ((rest.size() == 6 && rest[3] == ':') || rest.size() == 5) {  // +hh:mm, or +hhmm as Go once wrote it
    if (rest[0] != '+' && rest[0] != '-') return std::nullopt;
    std::string digits = std::string(rest.substr(1, 2)) + std::string(rest.substr(rest.size() - 2));
    if (digits.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    int oh = std::stoi(digits.substr(0, 2)), om = std::stoi(digits.substr(2));
    if (oh > 23 || om > 59) return std::nullopt;
    offset = (rest[0] == '+' ? 1 : -1) * (oh * 3600L + om * 60L);
  } else {
    return std::nullopt;
  }
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  std::int64_t epoch = static_cast<std::int64_t>(::timegm(&tm)) - offset;
  if (y < 1 || y > 9999) return std::nullopt;
  return str::rfc3339(epoch);
}

oci::ImageFsOptions image_sbom_needs() {
  oci::ImageFsOptions opts;
  auto database = oci::capture_paths(dpkg_database_capture());
  opts.capture = [database](std::string_view p) {
    return database(p) || p == "etc/os-release" || p == "usr/lib/os-release";
  };
  opts.summarize_paths = is_copyright_path;
  opts.summarize = [](std::string_view, std::string_view text) { return copyright_summary(text); };
  opts.max_summarize_bytes = kMaxCopyrightBytes;
  return opts;
}

Result<ImageSbom> image_sbom_of(const oci::ImageFilesystem& fs, const oci::Descriptor& image,
                                const oci::ImageManifest& manifest, const oci::ImageConfig& config,
                                std::string_view where, std::string tool) {
  ImageSbom out;
  out.image = image;
  out.tool = std::move(tool);
  out.platform = config.platform();
  out.created = "1970-01-01T00:00:00Z";
  if (auto c = config.json.find("created"); c != config.json.end() && c->is_string())
    if (auto t = sbom_time(c->get<std::string>())) out.created = *t;
  STRATA_TRY(out.layers, layers_of(manifest, config, where));
  if (fs.layers() != manifest.layers.size())
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": a filesystem of " + std::to_string(fs.layers()) +
                                                 " layers for a manifest of " + std::to_string(manifest.layers.size()));
  read_os_release(fs, out);

  STRATA_TRY(auto db, with_context(read_image_dpkg_database(fs), std::string(where)));
  out.dpkg_database = db.present;
  std::size_t database_layer = layer_of(fs, "var/lib/dpkg/status").value_or(0);
  for (auto& installed : db.packages) {
    auto& p = installed.package;
    SbomPackage s;
    s.name = p.name;
    s.version = p.version;
    s.architecture = p.architecture;
    s.source = p.source;
    s.source_version = p.source_version;
    s.maintainer = installed.maintainer;
    if (installed.homepage.starts_with("https://") || installed.homepage.starts_with("http://"))
      s.homepage = installed.homepage;
    std::optional<std::size_t> layer;
    if (installed.origin.starts_with("/var/lib/dpkg/status.d/")) layer = layer_of(fs, installed.origin.substr(1));
    if (!layer) layer = layer_of(fs, "var/lib/dpkg/info/" + p.name + ":" + p.architecture + ".list");
    if (!layer) layer = layer_of(fs, "var/lib/dpkg/info/" + p.name + ".list");
    s.layer = layer.value_or(database_layer);
    if (auto license = fs.summary("usr/share/doc/" + p.name + "/copyright")) s.license = *license;
    out.packages.push_back(std::move(s));
  }
  std::sort(out.packages.begin(), out.packages.end(), [](const SbomPackage& a, const SbomPackage& b) {
    return std::tie(a.name, a.architecture) < std::tie(b.name, b.architecture);
  });
  out.toolchains = toolchains_of(manifest);
  return out;
}

Result<ImageSbom> read_image_sbom(oci::Store& store, const oci::RawManifest& raw, const oci::ImageManifest& manifest,
                                  std::string_view where, std::string tool) {
  STRATA_TRY(auto cfg_bytes, oci::read_blob(store, manifest.config));
  STRATA_TRY(auto config, oci::parse_config(std::move(cfg_bytes), std::string(where) + " config"));
  STRATA_TRY_VOID(layers_of(manifest, config, where));  // before any layer is read
  STRATA_TRY(auto fs, with_context(oci::ImageFilesystem::load(store, manifest, image_sbom_needs()), std::string(where)));
  return image_sbom_of(fs, raw.descriptor, manifest, config, where, std::move(tool));
}

}  // namespace strata::layer::sbom
