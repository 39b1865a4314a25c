#include "layer/toolchain/release.hpp"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "layer/apt/signature.hpp"
#include "layer/toolchain/release_keys.hpp"
#include "oci/http/url.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer::toolchain {
namespace {

// Bounds on what a source's index may weigh before it is refused.
constexpr std::size_t kMaxIndexBytes = std::size_t{64} << 20;     // index.json, listings, packuments
constexpr std::size_t kMaxSumsBytes = std::size_t{4} << 20;       // SHASUMS256.txt.asc, SHA256SUMS
constexpr std::size_t kMaxSmallBytes = std::size_t{64} << 10;     // .sha256, .asc

// The default python-build-standalone release: pinned, so a plan means the
// same bytes tomorrow. Another release is another source
// (--toolchain-source python=https://…/releases/download/TAG).
constexpr std::string_view kPythonRelease = "20241016";

std::string trim_slash(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

bool is_hex(std::string_view s, std::size_t n) {
  return s.size() == n && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

std::string node_arch(std::string_view arch) { return arch == "amd64" ? "x64" : std::string(arch); }
std::string gnu_arch(std::string_view arch) {
  return arch == "amd64" ? "x86_64" : arch == "arm64" ? "aarch64" : std::string(arch);
}

Error index_error(const std::string& url, const std::string& why) {
  return Error(ErrorCode::kInvalidArgument, url + ": " + why + "; is the toolchain source right?");
}

// The newest admitted release among `versions`.
std::optional<std::string> newest(const std::vector<std::string>& versions, const VersionWant& want) {
  std::optional<std::string> best;
  for (const auto& v : versions) {
    if (!is_release_version(v)) continue;
    if (want.exact ? v != *want.exact : !(want.admits && want.admits(v))) continue;
    if (!best || release_version_less(*best, v)) best = v;
  }
  return best;
}

Error no_release(const ResolveRequest& r, const std::string& index, std::size_t seen) {
  return Error(ErrorCode::kNotFound, r.tool + " " + (r.want.exact ? *r.want.exact : r.want.text) + ": " + index +
                                         " lists no release for linux/" + r.arch + " that matches (" +
                                         std::to_string(seen) + " releases listed); pick another version or source");
}

// "<hex>  <name>" lines → name → hex.
std::map<std::string, std::string> parse_sums(std::string_view text, std::size_t hex_len) {
  std::map<std::string, std::string> out;
  for (std::string_view line : str::split(text, '\n')) {
    auto w = str::split_ws(line);
    if (w.size() != 2) continue;
    std::string name(w[1]);
    if (!name.empty() && name[0] == '*') name.erase(0, 1);  // binary-mode marker
    if (is_hex(w[0], hex_len)) out.emplace(name, std::string(w[0]));
  }
  return out;
}

Result<nlohmann::json> parse_json(const std::string& text, const std::string& url) {
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return fail(index_error(url, "not valid JSON"));
  return j;
}

std::string json_string(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return "";
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

// --- Node.js, official layout -------------------------------------------------
Result<Release> node_official(oci::http::Transport& http, const ResolveRequest& r) {
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string base = trim_slash(r.source.url);
  const std::string platform = "linux-" + node_arch(r.arch);
  if (r.want.exact) {
    rel.version = *r.want.exact;
  } else {
    const std::string url = base + "/index.json";
    STRATA_TRY(std::string text, get_text(http, url, kMaxIndexBytes));
    STRATA_TRY(nlohmann::json index, parse_json(text, url));
    if (!index.is_array()) return fail(index_error(url, "not a JSON array of releases"));
    std::vector<std::string> versions;
    for (const auto& e : index) {
      std::string v = json_string(e, "version");
      if (v.size() < 2 || v[0] != 'v') continue;
      auto files = e.is_object() ? e.find("files") : e.end();
      bool has = files != e.end() && files->is_array() &&
                 std::any_of(files->begin(), files->end(), [&](const auto& f) { return f == platform; });
      if (has) versions.push_back(v.substr(1));
    }
    auto best = newest(versions, r.want);
    if (!best) return fail(no_release(r, url, index.size()));
    rel.version = *best;
    if (auto k = r.known ? r.known(rel.version) : std::nullopt) return *k;
  }
  if (!is_release_version(rel.version)) {
    return fail(ErrorCode::kInvalidArgument, "node " + str::quote(rel.version) + " is not a release version (X.Y.Z)");
  }
  const std::string dir = base + "/v" + rel.version;
  const std::string sums_url = dir + "/SHASUMS256.txt.asc";
  STRATA_TRY(std::string signed_sums, get_text(http, sums_url, kMaxSumsBytes));
  auto verified = verify_clearsigned(signed_sums, release_keys("node", r.extra_keyrings), sums_url);
  if (!verified) {
    const Error e = verified.error().context("node " + rel.version);
    return fail(e.code(), e.message() + "; nothing was downloaded or cached");
  }
  auto sums = parse_sums(verified->content, 64);
  for (const char* ext : {".tar.xz", ".tar.gz"}) {
    std::string name = "node-v" + rel.version + "-" + platform + ext;
    auto it = sums.find(name);
    if (it == sums.end()) continue;
    rel.archives.push_back({"runtime", dir + "/" + name, name, "sha256", it->second, 0,
                            "SHASUMS256.txt.asc signed by " + verified->fingerprint, rel.version, ""});
    return rel;
  }
  return fail(ErrorCode::kNotFound, sums_url + " names no node-v" + rel.version + "-" + platform +
                                        ".tar.xz or .tar.gz; this release has no linux/" + r.arch + " build");
}

// --- Node.js from the npm registry ---------------------------------------------
// "sha512-<base64>" (an SRI list may hold several) → hex.
std::optional<std::string> sri_sha512_hex(std::string_view integrity) {
  for (std::string_view part : str::split_ws(integrity)) {
    if (!part.starts_with("sha512-")) continue;
    auto bytes = str::base64_decode(part.substr(7));
    if (!bytes || bytes->size() != 64) return std::nullopt;
    return to_hex(std::span(reinterpret_cast<const unsigned char*>(bytes->data()), bytes->size()));
  }
  return std::nullopt;
}

Result<nlohmann::json> packument(oci::http::Transport& http, const std::string& registry, const std::string& name) {
  const std::string url = registry + "/" + name;
  // The abbreviated form (what npm install reads): versions, dist, engines, deprecated.
  STRATA_TRY(std::string text, get_text(http, url, kMaxIndexBytes,
                                        "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8"));
  STRATA_TRY(nlohmann::json j, parse_json(text, url));
  if (!j.is_object() || !j.contains("versions") || !j["versions"].is_object()) {
    return fail(index_error(url, "not an npm packument (no versions object)"));
  }
  return j;
}

Result<Archive> npm_archive(const nlohmann::json& version, const std::string& role, const std::string& what,
                            const std::string& v) {
  const nlohmann::json* dist = version.contains("dist") ? &version["dist"] : nullptr;
  std::string tarball = dist ? json_string(*dist, "tarball") : "";
  auto hex = dist ? sri_sha512_hex(json_string(*dist, "integrity")) : std::nullopt;
  if (tarball.empty() || !hex) {
    return fail(ErrorCode::kInvalidArgument,
                what + "@" + v + ": the registry gives no tarball with a sha512 integrity; strata does not install "
                                  "what it cannot verify");
  }
  std::string name = tarball.substr(tarball.rfind('/') + 1);
  return Archive{role, tarball, name, "sha512", *hex, 0, "sha512 integrity from the npm registry", v, ""};
}

Result<Release> node_npm(oci::http::Transport& http, const ResolveRequest& r) {
  if (!r.satisfies) return fail(ErrorCode::kInvalidArgument, "node from the npm registry needs a range check");
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string registry = trim_slash(r.source.url);
  const std::string pkg = "node-linux-" + node_arch(r.arch);
  STRATA_TRY(nlohmann::json node, packument(http, registry, pkg));
  std::vector<std::string> versions;
  for (const auto& [v, _] : node["versions"].items()) versions.push_back(v);
  auto best = newest(versions, r.want);
  if (!best) return fail(no_release(r, registry + "/" + pkg, versions.size()));
  rel.version = *best;
  if (auto k = r.known ? r.known(rel.version) : std::nullopt) return *k;
  STRATA_TRY(Archive runtime, npm_archive(node["versions"][rel.version], "runtime", pkg, rel.version));
  rel.archives.push_back(std::move(runtime));
  // node-linux-* carries bin/node and include/node, not npm: the newest
  // npm release whose engines admit this Node comes from the registry too.
  STRATA_TRY(nlohmann::json npm, packument(http, registry, "npm"));
  std::optional<std::string> npm_version;
  for (const auto& [v, meta] : npm["versions"].items()) {
    if (!is_release_version(v) || (meta.is_object() && meta.contains("deprecated"))) continue;
    std::string engines = meta.is_object() && meta.contains("engines") ? json_string(meta["engines"], "node") : "";
    if (!engines.empty() && !r.satisfies(engines, rel.version)) continue;
    if (!npm_version || release_version_less(*npm_version, v)) npm_version = v;
  }
  if (!npm_version) {
    return fail(ErrorCode::kNotFound, registry + "/npm lists no npm release whose engines admit node " + rel.version);
  }
  STRATA_TRY(Archive npm_archive_, npm_archive(npm["versions"][*npm_version], "npm", "npm", *npm_version));
  rel.archives.push_back(std::move(npm_archive_));
  return rel;
}

// --- Go --------------------------------------------------------------------------
Result<Release> go_release(oci::http::Transport& http, const ResolveRequest& r) {
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string base = trim_slash(r.source.url);
  const std::string url = base + "/?mode=json&include=all";
  STRATA_TRY(std::string text, get_text(http, url, kMaxIndexBytes));
  STRATA_TRY(nlohmann::json list, parse_json(text, url));
  if (!list.is_array()) return fail(index_error(url, "not a JSON array of releases"));
  std::map<std::string, const nlohmann::json*> archives;  // version → its linux/arch archive
  for (const auto& rel_j : list) {
    std::string v = json_string(rel_j, "version");
    if (!v.starts_with("go") || !rel_j.contains("files") || !rel_j["files"].is_array()) continue;
    auto stable_j = rel_j.find("stable");
    bool stable = stable_j != rel_j.end() && stable_j->is_boolean() && stable_j->get<bool>();
    for (const auto& f : rel_j["files"]) {
      if (json_string(f, "os") == "linux" && json_string(f, "arch") == r.arch && json_string(f, "kind") == "archive" &&
          (stable || r.want.exact))
        archives.emplace(v.substr(2), &f);
    }
  }
  std::vector<std::string> versions;
  for (const auto& [v, _] : archives) versions.push_back(v);
  auto best = newest(versions, r.want);
  if (!best) return fail(no_release(r, url, list.size()));
  rel.version = *best;
  const nlohmann::json& f = *archives.at(*best);
  std::string name = json_string(f, "filename");
  std::string hex = str::lower(json_string(f, "sha256"));
  if (name.empty() || name.find('/') != std::string::npos || !is_hex(hex, 64)) {
    return fail(index_error(url, "the go" + rel.version + " linux/" + r.arch + " entry has no file name or sha256"));
  }
  std::uint64_t size = f.contains("size") && f["size"].is_number_unsigned() ? f["size"].get<std::uint64_t>() : 0;
  rel.archives.push_back({"runtime", base + "/" + name, name, "sha256", hex, size,
                          "sha256 from the release listing " + url, rel.version, ""});
  return rel;
}

// --- Rust ------------------------------------------------------------------------
Result<Release> rust_release(oci::http::Transport& http, const ResolveRequest& r) {
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string base = trim_slash(r.source.url);
  if (r.want.exact) {
    rel.version = *r.want.exact;
  } else {
    const std::string url = base + "/manifests.txt";
    STRATA_TRY(std::string text, get_text(http, url, kMaxIndexBytes));
    std::vector<std::string> versions;
    constexpr std::string_view kPrefix = "channel-rust-", kSuffix = ".toml";
    for (std::string_view line : str::split(text, '\n')) {
      line = str::trim(line);
      std::string_view file = line.substr(line.rfind('/') == std::string_view::npos ? 0 : line.rfind('/') + 1);
      if (!file.starts_with(kPrefix) || !file.ends_with(kSuffix)) continue;
      versions.emplace_back(file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size()));
    }
    auto best = newest(versions, r.want);
    if (!best) return fail(no_release(r, url, versions.size()));
    rel.version = *best;
    if (auto k = r.known ? r.known(rel.version) : std::nullopt) return *k;
  }
  if (!is_release_version(rel.version)) {
    return fail(ErrorCode::kInvalidArgument, "rust " + str::quote(rel.version) + " is not a release version (X.Y.Z)");
  }
  const std::string name = "rust-" + rel.version + "-" + gnu_arch(r.arch) + "-unknown-linux-gnu.tar.xz";
  const std::string url = base + "/dist/" + name;
  STRATA_TRY(std::string sum, get_text(http, url + ".sha256", kMaxSmallBytes));
  auto w = str::split_ws(sum);
  if (w.empty() || !is_hex(str::lower(w[0]), 64)) return fail(index_error(url + ".sha256", "no sha256 in it"));
  rel.archives.push_back({"runtime", url, name, "sha256", str::lower(w[0]), 0,
                          name + ".sha256, and " + name + ".asc signed by the Rust release key", rel.version,
                          url + ".asc"});
  return rel;
}

// --- Python (python-build-standalone) ------------------------------------------------
Result<Release> python_release(oci::http::Transport& http, const ResolveRequest& r) {
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string base = trim_slash(r.source.url);
  const std::string url = base + "/SHA256SUMS";
  STRATA_TRY(std::string text, get_text(http, url, kMaxSumsBytes));
  auto sums = parse_sums(text, 64);
  const std::string triple = gnu_arch(r.arch) + "-unknown-linux-gnu";
  std::map<std::string, std::pair<std::string, std::string>> by_version;  // version → (name, hex), stripped first
  for (const char* flavour : {"-install_only.tar.gz", "-install_only_stripped.tar.gz"}) {
    for (const auto& [name, hex] : sums) {
      if (!name.starts_with("cpython-") || !name.ends_with(std::string("-") + triple + flavour)) continue;
      auto plus = name.find('+');
      if (plus == std::string::npos) continue;
      by_version[name.substr(8, plus - 8)] = {name, hex};
    }
  }
  std::vector<std::string> versions;
  for (const auto& [v, _] : by_version) versions.push_back(v);
  auto best = newest(versions, r.want);
  if (!best) return fail(no_release(r, url, versions.size()));
  rel.version = *best;
  const auto& [name, hex] = by_version.at(*best);
  std::string encoded = name;
  for (std::size_t at = encoded.find('+'); at != std::string::npos; at = encoded.find('+', at)) {
    encoded.replace(at, 1, "%2B");
  }
  rel.archives.push_back({"runtime", base + "/" + encoded, name, "sha256", hex, 0, "SHA256SUMS of " + base,
                          rel.version, ""});
  return rel;
}

// --- Java: Eclipse Temurin, from the Adoptium API (v3) -------------------------------
// GET /v3/assets/feature_releases/{major}/ga?… is an array of releases, each
// {version_data: {major, minor, security, patch?, openjdk_version, semver},
//  binaries: [{os, architecture, image_type, jvm_impl, heap_size,
//              package: {name, link, checksum, size}}]}, newest first
// (sort_order=DESC), at most 20 a page; /v3/info/available_releases lists
// the feature releases ({available_releases: [8, 11, 17, 21, …]}).
constexpr std::size_t kAdoptiumPageSize = 20;  // the API's largest page
constexpr std::size_t kAdoptiumPages = 10;     // 200 releases of one feature release: more than any has
constexpr std::uint64_t kMaxReleaseNumber = 1000000;


// A non-negative integer field below kMaxReleaseNumber (absent: nullopt).
std::optional<std::uint64_t> json_number(const nlohmann::json& o, const char* key) {
  if (!o.is_object()) return std::nullopt;
  auto it = o.find(key);
  if (it == o.end() || !it->is_number_unsigned()) return std::nullopt;
  auto n = it->get<std::uint64_t>();
  return n < kMaxReleaseNumber ? std::optional(n) : std::nullopt;
}

// A download link the index names: http(s), no space or control character.
bool plain_link(std::string_view link) {
  if (!link.starts_with("https://") && !link.starts_with("http://")) return false;
  return std::none_of(link.begin(), link.end(), [](char c) { return static_cast<unsigned char>(c) <= ' ' || c == 0x7f; });
}

// A file name an index gives an archive: one path component of plain characters.
bool plain_name(std::string_view name, std::string_view suffix) {
  return name.size() > suffix.size() && name.size() <= 255 && name.ends_with(suffix) && name[0] != '.' &&
         std::all_of(name.begin(), name.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '_' || c == '-' || c == '+';
         });
}

// A link is as trustworthy as the index that named it: an https index
// names https downloads (an http mirror may name http ones).
bool link_allowed(std::string_view link, const std::string& base) {
  return plain_link(link) && (link.starts_with("https://") || base.starts_with("http://"));
}

struct JdkBuild {
  std::string version;  // 21.0.5
  std::string full;     // 21.0.5+11
  Archive archive;
};

// The release's linux JDK build for `arch` (HotSpot, normal heap), if it
// has one. An entry for this platform that lacks what strata verifies with
// is an error naming the index; other platforms' entries are not read.
Result<std::optional<JdkBuild>> temurin_build(const nlohmann::json& rel, const ResolveRequest& r, std::uint64_t major,
                                               const std::string& base, const std::string& url) {
  if (!rel.is_object()) return fail(index_error(url, "a release is not a JSON object"));
  auto vd = rel.find("version_data");
  if (vd == rel.end() || !vd->is_object()) return fail(index_error(url, "a release has no version_data object"));
  auto ma = json_number(*vd, "major"), mi = json_number(*vd, "minor"), se = json_number(*vd, "security");
  auto pa = json_number(*vd, "patch");
  if (!ma || !mi || !se) return fail(index_error(url, "a release's version_data has no major, minor and security numbers"));
  if (*ma != major) return std::optional<JdkBuild>();  // another feature release: not this line's
  JdkBuild b;
  b.version = std::to_string(*ma) + "." + std::to_string(*mi) + "." + std::to_string(*se) +
              (pa && *pa > 0 ? "." + std::to_string(*pa) : "");
  b.full = json_string(*vd, "openjdk_version");
  if (b.full.empty() || b.full.size() > 64) b.full = json_string(*vd, "semver");
  if (b.full.size() > 64) b.full.clear();
  auto bins = rel.find("binaries");
  if (bins == rel.end() || !bins->is_array()) return fail(index_error(url, "release " + b.version + " has no binaries array"));
  const std::string arch = download_arch("java", r.arch);
  for (const auto& bin : *bins) {
    if (json_string(bin, "os") != "linux" || json_string(bin, "architecture") != arch ||
        json_string(bin, "image_type") != "jdk")
      continue;
    const std::string jvm = json_string(bin, "jvm_impl"), heap = json_string(bin, "heap_size");
    if ((!jvm.empty() && jvm != "hotspot") || (!heap.empty() && heap != "normal")) continue;
    const auto pkg = bin.find("package");
    const std::string what = "the linux/" + r.arch + " JDK of " + b.version;
    if (pkg == bin.end() || !pkg->is_object()) return fail(index_error(url, what + " has no package object"));
    std::string name = json_string(*pkg, "name"), link = json_string(*pkg, "link");
    std::string hex = str::lower(json_string(*pkg, "checksum"));
    auto size = pkg->contains("size") && (*pkg)["size"].is_number_unsigned() ? (*pkg)["size"].get<std::uint64_t>() : 0;
    if (!plain_name(name, ".tar.gz")) return fail(index_error(url, what + ": package.name is not a .tar.gz file name"));
    if (!link_allowed(link, base)) return fail(index_error(url, what + ": package.link is not an https:// URL"));
    if (!is_hex(hex, 64)) return fail(index_error(url, what + ": package.checksum is not a sha256"));
    if (size == 0 || size > (std::uint64_t{2} << 30))
      return fail(index_error(url, what + ": package.size is not a size strata accepts (1 byte to 2 GiB)"));
    b.archive = {"runtime", link, name, "sha256", hex, size, "sha256 and size from the Adoptium API " + url,
                 b.full.empty() ? b.version : b.full, ""};
    return std::optional(std::move(b));
  }
  return std::optional<JdkBuild>();
}

Result<Release> java_release(oci::http::Transport& http, const ResolveRequest& r) {
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string base = trim_slash(r.source.url);
  std::vector<std::uint64_t> majors;
  const std::string line = r.want.exact ? line_of("java", *r.want.exact) : r.want.line;
  if (!line.empty()) {
    auto m = str::parse_u64(line);
    if (!m || *m >= kMaxReleaseNumber) return fail(ErrorCode::kInvalidArgument, "java " + line + ": not a feature release");
    majors.push_back(*m);
  } else {
    const std::string url = base + "/v3/info/available_releases";
    STRATA_TRY(std::string text, get_text(http, url, kMaxSmallBytes, "application/json"));
    STRATA_TRY(nlohmann::json info, parse_json(text, url));
    auto list = info.is_object() ? info.find("available_releases") : info.end();
    if (list == info.end() || !list->is_array() || list->size() > 1000)
      return fail(index_error(url, "no available_releases array of feature releases"));
    for (const auto& m : *list)
      if (m.is_number_unsigned() && m.get<std::uint64_t>() < kMaxReleaseNumber) majors.push_back(m.get<std::uint64_t>());
    std::sort(majors.rbegin(), majors.rend());
    majors.erase(std::unique(majors.begin(), majors.end()), majors.end());
  }
  std::size_t seen = 0;
  std::string last_url = base + "/v3/assets/feature_releases";
  for (std::uint64_t major : majors) {
    std::map<std::string, JdkBuild, bool (*)(const std::string&, const std::string&)> builds(
        [](const std::string& a, const std::string& b) { return release_version_less(a, b); });
    std::vector<std::string> versions;
    // Newest first: the pages stop at the first that holds an admitted release.
    for (std::size_t page = 0; page < kAdoptiumPages; ++page) {
      const std::string url = base + "/v3/assets/feature_releases/" + std::to_string(major) +
                              "/ga?architecture=" + download_arch("java", r.arch) +
                              "&heap_size=normal&image_type=jdk&jvm_impl=hotspot&os=linux&page=" +
                              std::to_string(page) + "&page_size=" + std::to_string(kAdoptiumPageSize) +
                              "&project=jdk&sort_method=DEFAULT&sort_order=DESC&vendor=eclipse";
      last_url = url;
      auto text = get_text(http, url, kMaxIndexBytes, "application/json");
      // Past the last page the API answers 404 ("no releases match").
      if (!text && page > 0 && text.error().code() == ErrorCode::kNotFound) break;
      if (!text) return fail(text.error());
      STRATA_TRY(nlohmann::json list, parse_json(*text, url));
      if (!list.is_array()) return fail(index_error(url, "not a JSON array of releases"));
      seen += list.size();
      bool admitted = false;
      for (const auto& e : list) {
        STRATA_TRY(std::optional<JdkBuild> b, temurin_build(e, r, major, base, url));
        if (!b) continue;
        versions.push_back(b->version);
        admitted |= newest({b->version}, r.want).has_value();
        builds.emplace(b->version, std::move(*b));  // the first listed of a version (the newest build) wins
      }
      if (admitted || list.size() < kAdoptiumPageSize) break;
    }
    auto best = newest(versions, r.want);
    if (!best) continue;
    rel.version = *best;
    if (auto k = r.known ? r.known(rel.version) : std::nullopt) return *k;
    rel.archives.push_back(builds.at(*best).archive);
    return rel;
  }
  return fail(no_release(r, last_url, seen));
}

// --- .NET SDK, from the release metadata ------------------------------------------------
// release-metadata/releases-index.json lists the channels
// ({"releases-index": [{"channel-version": "8.0", …}]}); each channel's
// release-metadata/<channel>/releases.json its releases, each with the SDKs
// it shipped ("sdks": [{version, files: [{name, rid, url, hash}]}], older
// ones only "sdk"), hash the file's sha512.
std::string dotnet_rid(std::string_view arch) { return "linux-" + download_arch("dotnet", arch); }

Result<Release> dotnet_release(oci::http::Transport& http, const ResolveRequest& r) {
  Release rel{r.tool, "", r.arch, r.source, {}};
  const std::string base = trim_slash(r.source.url);
  std::vector<std::string> channels;
  const std::string line = r.want.exact ? line_of("dotnet", *r.want.exact) : r.want.line;
  if (!line.empty()) {
    channels.push_back(line);
  } else {
    const std::string url = base + "/release-metadata/releases-index.json";
    STRATA_TRY(std::string text, get_text(http, url, kMaxSumsBytes, "application/json"));
    STRATA_TRY(nlohmann::json index, parse_json(text, url));
    auto list = index.is_object() ? index.find("releases-index") : index.end();
    if (list == index.end() || !list->is_array() || list->size() > 1000)
      return fail(index_error(url, "no releases-index array of channels"));
    for (const auto& c : *list) {
      std::string v = json_string(c, "channel-version");
      if (is_release_version(v) && std::count(v.begin(), v.end(), '.') == 1) channels.push_back(v);
    }
    std::sort(channels.begin(), channels.end(), [](const auto& a, const auto& b) { return release_version_less(b, a); });
    channels.erase(std::unique(channels.begin(), channels.end()), channels.end());
  }
  const std::string rid = dotnet_rid(r.arch);
  std::size_t seen = 0;
  std::string last_url = base + "/release-metadata";
  for (const auto& channel : channels) {
    const std::string url = base + "/release-metadata/" + channel + "/releases.json";
    last_url = url;
    STRATA_TRY(std::string text, get_text(http, url, kMaxIndexBytes, "application/json"));
    STRATA_TRY(nlohmann::json doc, parse_json(text, url));
    auto releases = doc.is_object() ? doc.find("releases") : doc.end();
    if (releases == doc.end() || !releases->is_array()) return fail(index_error(url, "no releases array"));
    std::map<std::string, const nlohmann::json*> sdks;  // SDK version → its linux-<arch> file
    for (const auto& release : *releases) {
      if (!release.is_object()) return fail(index_error(url, "a release is not a JSON object"));
      std::vector<const nlohmann::json*> listed;
      if (auto many = release.find("sdks"); many != release.end() && many->is_array()) {
        for (const auto& s : *many) listed.push_back(&s);
      } else if (auto one = release.find("sdk"); one != release.end() && one->is_object()) {
        listed.push_back(&*one);
      }
      for (const nlohmann::json* sdk : listed) {
        ++seen;
        std::string v = json_string(*sdk, "version");
        if (!is_release_version(v) || line_of("dotnet", v) != channel) continue;  // previews: 9.0.100-rc.2…
        auto files = sdk->is_object() ? sdk->find("files") : sdk->end();
        if (files == sdk->end() || !files->is_array()) continue;
        for (const auto& f : *files) {
          if (json_string(f, "rid") != rid || !json_string(f, "name").ends_with(".tar.gz")) continue;
          sdks.emplace(v, &f);
          break;
        }
      }
    }
    std::vector<std::string> versions;
    for (const auto& [v, _] : sdks) versions.push_back(v);
    auto best = newest(versions, r.want);
    if (!best) continue;
    rel.version = *best;
    if (auto k = r.known ? r.known(rel.version) : std::nullopt) return *k;
    const nlohmann::json& f = *sdks.at(*best);
    const std::string what = "the " + rid + " SDK " + rel.version;
    std::string link = json_string(f, "url"), hex = str::lower(json_string(f, "hash"));
    std::string name = link.substr(link.rfind('/') + 1);
    if (!link_allowed(link, base)) return fail(index_error(url, what + ": its url is not an https:// URL"));
    if (!plain_name(name, ".tar.gz")) return fail(index_error(url, what + ": its url names no .tar.gz file"));
    if (!is_hex(hex, 128)) return fail(index_error(url, what + ": its hash is not a sha512"));
    // A mirror has the official layout (dotnet-install.sh's --azure-feed):
    // the SDK under <base>/Sdk/<version>/, whatever host the metadata names.
    if (r.source.kind != Source::Kind::kOfficial) link = base + "/Sdk/" + rel.version + "/" + name;
    rel.archives.push_back({"runtime", link, name, "sha512", hex, 0, "sha512 from " + url, rel.version, ""});
    return rel;
  }
  return fail(no_release(r, last_url, seen));
}

}  // namespace

bool is_toolchain_tool(std::string_view tool) {
  return tool == "node" || tool == "go" || tool == "rust" || tool == "python" || tool == "java" || tool == "dotnet";
}

std::string download_arch(std::string_view tool, std::string_view arch) {
  if (tool == "node" || tool == "dotnet") return node_arch(arch);
  if (tool == "rust" || tool == "python") return gnu_arch(arch);
  if (tool == "java") return arch == "amd64" ? "x64" : gnu_arch(arch);  // Adoptium's names: x64, aarch64
  return std::string(arch);
}

std::size_t line_parts(std::string_view tool) { return tool == "node" || tool == "java" ? 1 : 2; }

std::string line_of(std::string_view tool, std::string_view version) {
  auto parts = str::split(version, '.');
  const std::size_t n = line_parts(tool);
  if (parts.size() < n) return "";
  std::string out;
  for (std::size_t i = 0; i < n; ++i) out += (i ? "." : "") + std::string(parts[i]);
  return out;
}

std::string Source::describe() const { return kind == Kind::kNpm ? "npm:" + url : url; }

Source official_source(std::string_view tool) {
  if (tool == "node") return {Source::Kind::kOfficial, "https://nodejs.org/dist"};
  if (tool == "go") return {Source::Kind::kOfficial, "https://go.dev/dl"};
  if (tool == "rust") return {Source::Kind::kOfficial, "https://static.rust-lang.org"};
  if (tool == "python") {
    return {Source::Kind::kOfficial, "https://github.com/astral-sh/python-build-standalone/releases/download/" +
                                         std::string(kPythonRelease)};
  }
  if (tool == "java") return {Source::Kind::kOfficial, "https://api.adoptium.net"};
  if (tool == "dotnet") return {Source::Kind::kOfficial, "https://builds.dotnet.microsoft.com/dotnet"};
  return {Source::Kind::kOfficial, ""};
}

Result<Source> parse_source(std::string_view tool, std::string_view text) {
  auto bad = [&](const std::string& why) {
    return fail(ErrorCode::kInvalidArgument,
                "--toolchain-source " + std::string(tool) + "=" + std::string(text) + ": " + why);
  };
  if (!is_toolchain_tool(tool)) {
    return bad(std::string(tool) + " has no task toolchain (tools with one: " + std::string(kToolchainTools) + ")");
  }
  Source s;
  std::string_view url = text;
  if (text == "npm" || text.starts_with("npm:")) {
    if (tool != "node") return bad("the npm registry carries node only; give " + std::string(tool) + " a mirror URL");
    s.kind = Source::Kind::kNpm;
    url = text == "npm" ? std::string_view("https://registry.npmjs.org") : text.substr(4);
  } else {
    s.kind = Source::Kind::kMirror;
  }
  const std::string expected = tool == "node" ? " (expected npm, npm:URL or a mirror URL)" : " (expected a mirror URL)";
  const std::string what = s.kind == Source::Kind::kNpm ? "the registry is " : "";
  if (!url.starts_with("https://") && !url.starts_with("http://"))
    return bad(what + "not an https:// or http:// URL" + expected);
  for (char c : url)
    if (static_cast<unsigned char>(c) <= ' ' || c == 0x7f) return bad("it holds a space or a control character");
  std::string_view rest = url.substr(url.find("://") + 3);
  if (rest.substr(0, rest.find('/')).find('@') != std::string_view::npos) return bad("credentials in a URL are not kept");
  if (url.find_first_of("?#") != std::string_view::npos) return bad("a base URL has no query or fragment");
  auto parsed = oci::http::parse_url(url);
  if (!parsed || parsed->host.empty()) return bad("no host in it");
  s.url = trim_slash(std::string(url));
  if (s.kind == Source::Kind::kMirror && s.url == official_source(tool).url) s.kind = Source::Kind::kOfficial;
  return s;
}

Result<std::pair<std::string, Source>> parse_source_option(std::string_view text) {
  auto eq = text.find('=');
  if (eq == std::string_view::npos || eq == 0) {
    return fail(ErrorCode::kInvalidArgument,
                "--toolchain-source " + std::string(text) + ": expected TOOL=npm|URL (node=npm, go=https://mirror/dl)");
  }
  std::string tool(text.substr(0, eq));
  STRATA_TRY(Source s, parse_source(tool, text.substr(eq + 1)));
  return std::pair{tool, s};
}

std::vector<std::string> source_hosts(std::string_view tool, const Source& source) {
  std::vector<std::string> hosts;
  if (auto u = oci::http::parse_url(source.url)) hosts.push_back(u->host);
  if (source.kind == Source::Kind::kOfficial) {
    if (tool == "go") hosts.emplace_back("dl.google.com");
    if (tool == "java") hosts.emplace_back("github.com");  // the API's package.link: Temurin's GitHub releases
    if (tool == "python" || tool == "java") {
      hosts.emplace_back("release-assets.githubusercontent.com");
      hosts.emplace_back("objects.githubusercontent.com");
    }
  }
  return hosts;
}

Result<Release> resolve_release(oci::http::Transport& http, const ResolveRequest& r) {
  if (r.want.exact && !is_release_version(*r.want.exact)) {
    return fail(ErrorCode::kInvalidArgument, r.tool + "@" + *r.want.exact + ": not a release version (X.Y.Z)");
  }
  if (r.tool == "node") return r.source.kind == Source::Kind::kNpm ? node_npm(http, r) : node_official(http, r);
  if (r.tool == "go") return go_release(http, r);
  if (r.tool == "rust") return rust_release(http, r);
  if (r.tool == "python") return python_release(http, r);
  if (r.tool == "java") return java_release(http, r);
  if (r.tool == "dotnet") return dotnet_release(http, r);
  return fail(ErrorCode::kInvalidArgument,
              r.tool + ": strata installs toolchains of " + std::string(kToolchainTools));
}

Result<std::string> get_text(oci::http::Transport& http, const std::string& url, std::size_t limit,
                             const std::string& accept) {
  std::string at = url;
  for (int hop = 0; hop <= 5; ++hop) {
    oci::http::Request req;
    req.url = at;
    req.max_body = limit;
    if (!accept.empty()) req.headers.set("Accept", accept);
    auto resp = http.send(req);
    if (!resp) return fail(resp.error().context("GET " + at));
    if (resp->status >= 300 && resp->status < 400) {
      auto loc = resp->headers.get("Location");
      if (!loc) return fail(ErrorCode::kUnavailable, "GET " + at + ": HTTP " + std::to_string(resp->status) +
                                                         " without a Location");
      STRATA_TRY(at, oci::http::resolve_url(at, *loc));
      continue;
    }
    if (resp->status == 404) {
      return fail(ErrorCode::kNotFound, "GET " + at + ": HTTP 404: not published there; check the version and "
                                                      "the toolchain source");
    }
    if (resp->status < 200 || resp->status >= 300) {
      return fail(ErrorCode::kUnavailable, "GET " + at + ": HTTP " + std::to_string(resp->status));
    }
    return std::move(resp->body);
  }
  return fail(ErrorCode::kUnavailable, "GET " + url + ": more than 5 redirects");
}

bool is_release_version(std::string_view v) {
  if (v.empty() || v.size() > 32 || v.front() == '.' || v.back() == '.') return false;
  bool prev_dot = false;
  for (char c : v) {
    if (c == '.') {
      if (prev_dot) return false;
      prev_dot = true;
    } else if (c < '0' || c > '9') {
      return false;
    } else {
      prev_dot = false;
    }
  }
  return true;
}

bool release_version_less(std::string_view a, std::string_view b) {
  auto pa = str::split(a, '.'), pb = str::split(b, '.');
  for (std::size_t i = 0; i < std::max(pa.size(), pb.size()); ++i) {
    std::uint64_t x = i < pa.size() ? str::parse_u64(pa[i]).value_or(0) : 0;
    std::uint64_t y = i < pb.size() ? str::parse_u64(pb[i]).value_or(0) : 0;
    if (x != y) return x < y;
  }
  return false;
}

}  // namespace strata::layer::toolchain
