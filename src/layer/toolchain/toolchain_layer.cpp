#include "layer/toolchain/toolchain_layer.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "layer/apt/signature.hpp"
#include "layer/toolchain/release_keys.hpp"
#include "oci/blob_io.hpp"
#include "oci/http/url.hpp"
#include "oci/layer_spool.hpp"
#include "oci/manifest.hpp"
#include "oci/media_types.hpp"
#include "oci/tar_reader.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer::toolchain {
namespace stdfs = std::filesystem;
namespace {

// The largest archive strata downloads (Rust's standalone installer is
// ~300 MiB; a JDK ~200 MiB).
constexpr std::uint64_t kMaxArchiveBytes = std::uint64_t{2} << 30;
constexpr oci::Compression kCompression = oci::Compression::kGzip;

stdfs::path cache_dir(const stdfs::path& home) { return home / "toolchains"; }

Result<stdfs::path> staging_dir(const stdfs::path& home) {
  stdfs::path dir = cache_dir(home) / "tmp";
  STRATA_TRY_VOID(fs::make_dirs(dir));
  return dir;
}

// --- resolutions, remembered -------------------------------------------------
nlohmann::json release_json(const Release& r) {
  nlohmann::json j{{"tool", r.tool}, {"version", r.version}, {"arch", r.arch}, {"source", r.source.describe()}};
  j["archives"] = nlohmann::json::array();
  for (const auto& a : r.archives) {
    j["archives"].push_back({{"role", a.role}, {"url", a.url}, {"name", a.name}, {"algorithm", a.algorithm},
                             {"hex", a.hex}, {"size", a.size}, {"verified_by", a.verified_by},
                             {"version", a.version}, {"signature_url", a.signature_url}});
  }
  return j;
}

std::optional<Release> release_from_json(const nlohmann::json& j, const Source& source) {
  try {
    Release r{j.at("tool").get<std::string>(), j.at("version").get<std::string>(), j.at("arch").get<std::string>(),
              source, {}};
    if (j.at("source").get<std::string>() != source.describe()) return std::nullopt;
    for (const auto& a : j.at("archives")) {
      Archive x{a.at("role").get<std::string>(),      a.at("url").get<std::string>(),
                a.at("name").get<std::string>(),      a.at("algorithm").get<std::string>(),
                a.at("hex").get<std::string>(),       a.at("size").get<std::uint64_t>(),
                a.at("verified_by").get<std::string>(), a.at("version").get<std::string>(),
                a.at("signature_url").get<std::string>()};
      if ((x.algorithm != "sha256" || x.hex.size() != 64) && (x.algorithm != "sha512" || x.hex.size() != 128))
        return std::nullopt;
      // The hex names a cache file: lowercase hex digits only.
      if (x.hex.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
      if (x.name.find('/') != std::string::npos) return std::nullopt;
      r.archives.push_back(std::move(x));
    }
    if (r.archives.empty() || !is_release_version(r.version)) return std::nullopt;
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::string release_id(const std::string& tool, const Source& source, const std::string& version,
                       const std::string& arch) {
  return sha256_hex(tool + "\n" + source.describe() + "\n" + version + "\n" + arch);
}

stdfs::path release_path(const stdfs::path& home, const Release& r) {
  return cache_dir(home) / "releases" / (release_id(r.tool, r.source, r.version, r.arch) + ".json");
}

std::optional<Release> remembered(const stdfs::path& file, const Source& source) {
  auto text = fs::read_file(file, 1 << 20);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded()) return std::nullopt;
  auto rel = release_from_json(j, source);
  // The file's name is the id of what it claims: a record that says
  // otherwise is not this release's.
  if (!rel || !is_toolchain_tool(rel->tool) || file.stem() != release_id(rel->tool, source, rel->version, rel->arch))
    return std::nullopt;
  return rel;
}

// The release to install: remembered for a pinned version, else the
// source's index; offline, the newest remembered release the want admits.
Result<Release> resolve(oci::http::Transport& http, const ToolchainRequest& r) {
  const ResolveRequest& q = r.resolve;
  if (q.want.exact) {
    if (auto hit = remembered(cache_dir(r.home) / "releases" / (release_id(q.tool, q.source, *q.want.exact, q.arch) +
                                                                 ".json"),
                              q.source))
      return *hit;
  }
  if (r.offline) {
    std::optional<Release> best;
    std::error_code ec;
    for (const auto& e : stdfs::directory_iterator(cache_dir(r.home) / "releases", ec)) {
      auto rel = remembered(e.path(), q.source);
      if (!rel || rel->tool != q.tool || rel->arch != q.arch) continue;
      if (q.want.exact ? rel->version != *q.want.exact : !(q.want.admits && q.want.admits(rel->version))) continue;
      if (!best || release_version_less(best->version, rel->version)) best = std::move(rel);
    }
    if (best) return *best;
    return fail(ErrorCode::kNotFound,
                q.tool + " " + (q.want.exact ? *q.want.exact : q.want.text) + " from " + q.source.describe() +
                    " is not in the toolchain cache and --offline allows no download; run once online, or load a "
                    "bundle that carries it (strata bundle load)");
  }
  ResolveRequest online = q;
  online.known = [&](const std::string& version) {
    return remembered(cache_dir(r.home) / "releases" / (release_id(q.tool, q.source, version, q.arch) + ".json"),
                      q.source);
  };
  STRATA_TRY(Release rel, resolve_release(http, online));
  return rel;
}

// --- archives ---------------------------------------------------------------------
stdfs::path archive_path(const stdfs::path& home, const Archive& a) {
  return cache_dir(home) / "archives" / a.algorithm / a.hex;
}

// Writes to a file, hashing and counting, refusing more than `limit` bytes.
class VerifyingFileSink final : public oci::ByteSink {
 public:
  VerifyingFileSink(oci::FileSink& out, HashAlgorithm alg, std::uint64_t limit, std::string url)
      : out_(out), hasher_(alg), alg_(alg), limit_(limit), url_(std::move(url)) {}
  Result<void> write(std::span<const std::byte> data) override {
    written_ += data.size();
    if (written_ > limit_) {
      return fail(ErrorCode::kFailedPrecondition, url_ + ": larger than the " + str::human_bytes(limit_) +
                                                      " the release index announces or strata accepts");
    }
    hasher_.update(data);
    return out_.write(data);
  }
  Result<void> restart() override {
    STRATA_TRY_VOID(out_.restart());
    hasher_ = Hasher(alg_);
    written_ = 0;
    return {};
  }
  std::string hex() { return hasher_.finish_hex(); }
  std::uint64_t written() const { return written_; }

 private:
  oci::FileSink& out_;
  Hasher hasher_;
  HashAlgorithm alg_;
  std::uint64_t limit_;
  std::string url_;
  std::uint64_t written_ = 0;
};

Error refused(const Archive& a, const std::string& why) {
  return Error(ErrorCode::kFailedPrecondition,
               a.url + ": " + why + "; nothing was cached. Try again (a download broken in transit), or check the "
                                    "toolchain source (--toolchain-source) if it persists");
}

// Downloads `a` into the cache unless it is there; returns the bytes fetched.
Result<std::uint64_t> fetch_archive(oci::http::Transport& http, const ToolchainRequest& r, const Archive& a) {
  const stdfs::path final_path = archive_path(r.home, a);
  if (std::error_code ec; stdfs::is_regular_file(final_path, ec)) {
    fs::mark_used(final_path);
    return 0;
  }
  if (r.offline) {
    return fail(ErrorCode::kNotFound, a.url + " is not in the toolchain cache and --offline allows no download; run "
                                              "once online, or load a bundle that carries it (strata bundle load)");
  }
  STRATA_TRY(stdfs::path tmp_dir, staging_dir(r.home));
  STRATA_TRY_VOID(fs::make_dirs(final_path.parent_path()));
  STRATA_TRY(oci::TempFile tmp, oci::TempFile::create(tmp_dir, "archive"));
  oci::FileSink file(tmp.fd(), tmp.path());
  const HashAlgorithm alg = a.algorithm == "sha512" ? HashAlgorithm::kSha512 : HashAlgorithm::kSha256;
  VerifyingFileSink sink(file, alg, a.size ? a.size : kMaxArchiveBytes, a.url);
  std::string at = a.url;
  for (int hop = 0;; ++hop) {
    if (hop > 5) return fail(refused(a, "more than 5 redirects"));
    oci::http::Request req;
    req.url = at;
    req.sink = &sink;
    auto resp = http.send(req);
    if (!resp) return fail(refused(a, "download failed: " + resp.error().message()));
    if (resp->status >= 300 && resp->status < 400) {
      auto loc = resp->headers.get("Location");
      if (!loc) return fail(refused(a, "HTTP " + std::to_string(resp->status) + " without a Location"));
      STRATA_TRY(at, oci::http::resolve_url(at, *loc));
      continue;
    }
    if (resp->status == 404) return fail(refused(a, "HTTP 404: the archive is not published there"));
    if (resp->status != 200) return fail(refused(a, "HTTP " + std::to_string(resp->status)));
    break;
  }
  const std::uint64_t got = sink.written();
  if (a.size && got != a.size) {
    return fail(refused(a, "got " + std::to_string(got) + " bytes, the index says " + std::to_string(a.size) +
                               " (a truncated download)"));
  }
  const std::string hex = sink.hex();
  if (hex != a.hex) {
    return fail(refused(a, a.algorithm + " is " + hex + ", not " + a.hex + " as " + a.verified_by +
                               " says (a truncated or altered download, or a mirror serving other bytes)"));
  }
  if (!a.signature_url.empty()) {
    STRATA_TRY(std::string sig, get_text(http, a.signature_url, 64 << 10));
    auto v = verify_detached_file(tmp.path(), sig, release_keys(r.resolve.tool, r.resolve.extra_keyrings),
                                  a.signature_url);
    if (!v) return fail(refused(a, v.error().message()));
  }
  STRATA_TRY_VOID(file.sync());
  STRATA_TRY(bool mine, fs::publish_file(tmp.path(), final_path));
  // Another process's verified copy of the same bytes is as good, and it is
  // not this run's to take back.
  return mine ? got : 0;
}

// --- the layer ------------------------------------------------------------------------
// The path of `rest` (inside the toolchain's directory) once a symlink
// target is followed: nullopt when it leaves the directory.
bool link_stays_inside(std::string_view entry_rest, std::string_view target) {
  if (target.starts_with('/')) return false;
  std::vector<std::string_view> parts;
  for (std::string_view p : str::split(entry_rest, '/')) parts.push_back(p);
  if (!parts.empty()) parts.pop_back();  // the link's own name
  for (std::string_view p : str::split(target, '/')) {
    if (p.empty() || p == ".") continue;
    if (p == "..") {
      if (parts.empty()) return false;
      parts.pop_back();
    } else {
      parts.push_back(p);
    }
  }
  return true;
}

struct ArchiveMap {
  std::string what;        // the archive, for errors
  std::string prefix;      // opt/strata/toolchains/node/20.18.0
  std::string under;       // where the archive's content goes below the prefix ("", "lib/node_modules/npm")
  bool components = false; // rust-installer: <top>/<component>/<path>, manifest.in and docs left out
  std::vector<std::string> drop;  // paths (after the top) left out
  bool topless = false;    // the archive's root is the toolchain's (.NET: ./dotnet, ./sdk/…), no top directory
  std::optional<std::string> top;

  Result<bool> operator()(oci::TarEntry& e) {
    auto refuse = [&](const std::string& why) {
      return fail(ErrorCode::kFailedPrecondition, what + ": entry " + str::quote(e.path) + ": " + why +
                                                      "; refusing the archive, nothing was cached");
    };
    if (e.path.empty()) return false;
    std::string rest = e.path;
    if (!topless) {
      auto slash = e.path.find('/');
      std::string first = e.path.substr(0, slash);
      if (!top) top = first;
      if (first != *top) return refuse("a second top-level directory beside " + str::quote(*top));
      rest = slash == std::string::npos ? "" : e.path.substr(slash + 1);
    }
    if (components) {
      if (rest.empty()) return false;
      auto s2 = rest.find('/');
      if (s2 == std::string::npos) return false;  // the installer's own files, and component directories
      std::string component = rest.substr(0, s2);
      rest = rest.substr(s2 + 1);
      if (component.starts_with("rust-docs") || rest == "manifest.in") return false;
    }
    if (std::find(drop.begin(), drop.end(), rest) != drop.end()) return false;
    for (std::string_view part : str::split(rest, '/')) {
      if (part.starts_with(oci::kWhiteoutPrefix)) {
        return refuse("whiteout names (.wh.*) would delete files of the image below the layer");
      }
    }
    if (e.type == oci::TarEntryType::kSymlink && !link_stays_inside(rest, e.link_target)) {
      return refuse("a symlink to " + str::quote(e.link_target) + " leaves the toolchain's directory");
    }
    if (e.type != oci::TarEntryType::kRegular && e.type != oci::TarEntryType::kDirectory &&
        e.type != oci::TarEntryType::kSymlink && e.type != oci::TarEntryType::kHardlink) {
      return refuse(std::string("a ") + std::string(oci::tar_entry_type_name(e.type)) + " has no place in a toolchain");
    }
    std::string below = under.empty() ? rest : rest.empty() ? under : under + "/" + rest;
    e.path = below.empty() ? prefix : prefix + "/" + below;
    e.uid = e.gid = 0;
    e.xattrs.clear();
    e.mode &= 0755;  // no setuid, setgid, sticky or group/world write in a toolchain
    return true;
  }
};

oci::TarEntry symlink_entry(std::string path, std::string target) {
  oci::TarEntry e;
  e.path = std::move(path);
  e.type = oci::TarEntryType::kSymlink;
  e.mode = 0777;
  e.link_target = std::move(target);
  return e;
}

std::string layer_key_json(const Release& r) {
  nlohmann::ordered_json j;
  j["recipe"] = kToolchainRecipe;
  j["tool"] = r.tool;
  j["version"] = r.version;
  j["arch"] = r.arch;
  j["archives"] = nlohmann::ordered_json::array();
  for (const auto& a : r.archives) j["archives"].push_back({{"role", a.role}, {"digest", a.algorithm + ":" + a.hex}});
  j["compression"] = std::string(oci::compression_name(kCompression));
  return oci::dump_json(j);
}

std::vector<std::string> tool_env(const std::string& tool, const std::string& prefix) {
  if (tool == "node") return {"npm_config_nodedir=" + prefix};  // node-gyp uses these headers: no download
  if (tool == "go") return {"GOTOOLCHAIN=local"};                // no silent switch to another Go
  if (tool == "java") return {"JAVA_HOME=" + prefix};             // Gradle, Maven and IDEs find the JDK by it
  // The SDK's own root (apphosts of `dotnet publish` find the runtime by
  // it), no telemetry sent from a sandbox, no first-run banner.
  if (tool == "dotnet") return {"DOTNET_ROOT=" + prefix, "DOTNET_CLI_TELEMETRY_OPTOUT=1", "DOTNET_NOLOGO=1"};
  return {};
}

struct LayerRecord {
  oci::Descriptor layer;
  oci::Digest diff_id = oci::Digest::sha256_of("");
  std::vector<std::string> commands;
};

stdfs::path layer_record_path(const stdfs::path& home, const std::string& key) {
  return cache_dir(home) / "layers" / (key + ".json");
}
stdfs::path layer_blob_path(const stdfs::path& home, const oci::Digest& d) {
  return cache_dir(home) / "blobs" / std::string(d.algorithm()) / std::string(d.hex());
}

std::optional<LayerRecord> read_layer_record(const stdfs::path& home, const std::string& key) {
  auto text = fs::read_file(layer_record_path(home, key), 1 << 20);
  if (!text) return std::nullopt;
  auto j = nlohmann::json::parse(*text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  try {
    auto digest = oci::Digest::parse(j.at("digest").get<std::string>());
    auto diff = oci::Digest::parse(j.at("diff_id").get<std::string>());
    if (!digest || !diff) return std::nullopt;
    LayerRecord rec{{}, *diff, j.at("commands").get<std::vector<std::string>>()};
    for (const auto& c : rec.commands)  // names of links strata makes: one path component each
      if (c.empty() || c == "." || c == ".." || c.find('/') != std::string::npos || c.find('\0') != std::string::npos)
        return std::nullopt;
    if (!digest->verifiable()) return std::nullopt;
    rec.layer.media_type = std::string(oci::layer_media_type(kCompression));
    rec.layer.digest = *digest;
    rec.layer.size = j.at("size").get<std::int64_t>();
    std::error_code ec;
    auto size = stdfs::file_size(layer_blob_path(home, rec.layer.digest), ec);
    if (ec || static_cast<std::int64_t>(size) != rec.layer.size) return std::nullopt;
    return rec;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

Result<LayerRecord> build_layer(const ToolchainRequest& r, const Release& rel, const std::string& key) {
  const std::string prefix = std::string(kToolchainRoot.substr(1)) + "/" + rel.tool + "/" + rel.version;
  STRATA_TRY(stdfs::path tmp_dir, staging_dir(r.home));
  STRATA_TRY(oci::LayerSpool spool, oci::LayerSpool::create(tmp_dir));
  const bool npm_source = rel.source.kind == Source::Kind::kNpm;
  for (const auto& a : rel.archives) {
    const stdfs::path file = archive_path(r.home, a);
    ArchiveMap map{a.name + " (" + a.url + ")", prefix, "", rel.tool == "rust", {}, rel.tool == "dotnet", std::nullopt};
    if (npm_source && a.role == "runtime") map.drop = {"package.json"};
    if (a.role == "npm") map.under = "lib/node_modules/npm";
    oci::ReadLimits limits;
    limits.duplicates = oci::DuplicatePaths::kRefuse;
    STRATA_TRY(auto reader, oci::TarReader::open_file(file, limits));
    auto added = spool.add_archive(*reader, map, map.what);
    // The reader names the cached file; the user knows the archive by its name and URL.
    if (!added) return fail(added.error().context(map.what));
  }
  auto entries = spool.entries();
  if (npm_source) {
    // The official archive's bin/npm and bin/npx, over the npm package.
    for (const auto& [name, script] : {std::pair{"npm", "npm-cli.js"}, std::pair{"npx", "npx-cli.js"}}) {
      const std::string target = prefix + "/lib/node_modules/npm/bin/" + script;
      if (!entries.contains(target)) {
        return fail(ErrorCode::kFailedPrecondition, "the npm package has no bin/" + std::string(script));
      }
      STRATA_TRY_VOID(spool.add(symlink_entry(prefix + "/bin/" + name, "../lib/node_modules/npm/bin/" + std::string(script))));
      STRATA_TRY_VOID(spool.set_mode(target, 0755));
    }
    entries = spool.entries();
  }
  // Archives without directory entries (npm pack writes none) have bin/ only as a parent.
  const std::string dir(program_dir(rel.tool));
  const std::string bin = dir.empty() ? prefix + "/" : prefix + "/" + dir + "/";
  auto is_program = [](const oci::TarEntry& e) {
    return e.type == oci::TarEntryType::kSymlink ||
           ((e.type == oci::TarEntryType::kRegular || e.type == oci::TarEntryType::kHardlink) && (e.mode & 0111));
  };
  if (dir.empty()) {
    // The programs beside the SDK's directories: only the named one.
    auto it = entries.find(bin + rel.tool);
    if (it == entries.end() || !is_program(*it->second)) {
      return fail(ErrorCode::kFailedPrecondition, rel.archives.front().url + ": no " + rel.tool +
                                                      " program at the archive's root; is this a " + rel.tool +
                                                      " release?");
    }
  } else if (std::none_of(entries.begin(), entries.end(), [&](const auto& e) { return e.first.starts_with(bin); })) {
    return fail(ErrorCode::kFailedPrecondition,
                rel.archives.front().url + ": no bin/ directory in the archive; is this a " + rel.tool + " release?");
  }
  LayerRecord rec;
  for (const auto& [path, e] : entries) {
    if (!path.starts_with(bin) || path.find('/', bin.size()) != std::string::npos || !is_program(*e)) continue;
    std::string name = path.substr(bin.size());
    if (dir.empty() && name != rel.tool) continue;
    rec.commands.push_back(name);
    STRATA_TRY_VOID(spool.add(symlink_entry("usr/local/bin/" + name, "/" + path)));
  }
  STRATA_TRY_VOID(spool.complete_parents(0, rel.tool + " " + rel.version));
  STRATA_TRY(oci::SpooledLayer spooled, spool.write(kCompression, tmp_dir));
  rec.layer = spooled.descriptor(kCompression);
  rec.diff_id = *spooled.digests.diff_id;
  // The blob, then the record naming it: a record is never ahead of its blob.
  const stdfs::path blob = layer_blob_path(r.home, rec.layer.digest);
  STRATA_TRY_VOID(fs::make_dirs(blob.parent_path()));
  STRATA_TRY_VOID(fs::sync_file(spooled.file.fd(), spooled.file.path()));
  STRATA_TRY(bool mine, fs::publish_file(spooled.file.path(), blob));
  (void)mine;
  nlohmann::ordered_json j;
  j["key"] = key;
  j["recipe"] = kToolchainRecipe;
  j["tool"] = rel.tool;
  j["version"] = rel.version;
  j["arch"] = rel.arch;
  j["digest"] = rec.layer.digest.str();
  j["size"] = rec.layer.size;
  j["diff_id"] = rec.diff_id.str();
  j["commands"] = rec.commands;
  STRATA_TRY_VOID(fs::make_dirs(layer_record_path(r.home, key).parent_path()));
  STRATA_TRY_VOID(fs::write_file_atomic(layer_record_path(r.home, key), oci::dump_json(j, 2) + "\n"));
  return rec;
}

}  // namespace

std::string toolchain_key(const Release& release) { return sha256_hex(layer_key_json(release)); }

stdfs::path archive_cache_path(const stdfs::path& home, const Archive& archive) { return archive_path(home, archive); }

std::string release_record(const Release& release) { return release_json(release).dump(2) + "\n"; }

Result<Release> parse_release_record(std::string_view json, std::string_view where) {
  const std::string w(where);
  auto j = nlohmann::json::parse(json, nullptr, false);
  if (j.is_discarded() || !j.is_object() || !j.contains("tool") || !j["tool"].is_string() || !j.contains("source") ||
      !j["source"].is_string()) {
    return fail(ErrorCode::kCorruption, w + ": not a toolchain release record (JSON with tool, source, version, "
                                            "arch, archives)");
  }
  STRATA_TRY(Source source, with_context(parse_source(j["tool"].get<std::string>(), j["source"].get<std::string>()), w));
  auto rel = release_from_json(j, source);
  if (!rel || rel->arch.empty()) {
    return fail(ErrorCode::kCorruption, w + ": a toolchain release record needs a release version, an arch and "
                                            "archives, each with a plain file name and a sha256 or sha512 digest");
  }
  return *rel;
}

Result<void> remember_release(const stdfs::path& home, const Release& release) {
  const stdfs::path at = release_path(home, release);
  if (std::error_code ec; stdfs::exists(at, ec)) return {};
  STRATA_TRY_VOID(fs::make_dirs(at.parent_path()));
  return fs::write_file_atomic(at, release_record(release));
}

std::string_view program_dir(std::string_view tool) { return tool == "dotnet" ? "" : "bin"; }

std::string ToolchainLayer::path_with(const std::string& path) const {
  const std::string_view dir = program_dir(release.tool);
  return prefix + (dir.empty() ? "" : "/" + std::string(dir)) + (path.empty() ? "" : ":" + path);
}

std::string ToolchainLayer::annotation() const {
  nlohmann::ordered_json j;
  j["tool"] = release.tool;
  j["release"] = release.version;
  j["source"] = release.source.describe();
  j["archives"] = nlohmann::ordered_json::array();
  for (const auto& a : release.archives) {
    j["archives"].push_back({{"url", a.url}, {"digest", a.algorithm + ":" + a.hex}, {"verified_by", a.verified_by}});
  }
  j["layer"] = layer.digest.str();
  j["key"] = key;
  return oci::dump_json(j);
}

Result<ToolchainLayer> ensure_toolchain(oci::http::Transport& http, const ToolchainRequest& r) {
  STRATA_TRY_VOID(fs::make_dirs(fs::home_lease_path(r.home).parent_path()));
  STRATA_TRY(fs::FileLock lease, fs::FileLock::acquire_shared(fs::home_lease_path(r.home)));
  STRATA_TRY(Release rel, resolve(http, r));
  ToolchainLayer out;
  out.key = toolchain_key(rel);
  out.prefix = std::string(kToolchainRoot) + "/" + rel.tool + "/" + rel.version;
  out.env = tool_env(rel.tool, out.prefix);
  auto rec = read_layer_record(r.home, out.key);
  out.cached = rec.has_value();
  out.lease = std::make_shared<fs::FileLock>(std::move(lease));
  if (rec) {  // the last use, for cache gc's least-recently-used order
    fs::mark_used(layer_record_path(r.home, out.key));
    fs::mark_used(layer_blob_path(r.home, rec->layer.digest));
    for (const auto& a : rel.archives) {
      if (r.need_archives) {
        STRATA_TRY(std::uint64_t got, fetch_archive(http, r, a));
        out.downloaded += got;
      } else {
        fs::mark_used(archive_path(r.home, a));
      }
    }
  }
  if (!rec) {
    // Archives this call put in the cache are taken out again when the
    // release is refused later (another archive fails, or the layer cannot
    // be built from them): nothing is cached from a refused release.
    std::vector<stdfs::path> fetched;
    auto refuse = [&](const Error& e) {
      for (const auto& p : fetched) ::unlink(p.c_str());
      return fail(e);
    };
    for (const auto& a : rel.archives) {
      auto got = fetch_archive(http, r, a);
      if (!got) return refuse(got.error());
      if (*got > 0) fetched.push_back(archive_path(r.home, a));
      out.downloaded += *got;
    }
    auto built = build_layer(r, rel, out.key);
    if (!built) return refuse(built.error());
    rec = std::move(*built);
  }
  // Remember the resolution once its archives verified: a pinned version
  // then needs no network, and --offline can choose among what is here.
  STRATA_TRY_VOID(remember_release(r.home, rel));
  out.layer = rec->layer;
  out.diff_id = rec->diff_id;
  out.commands = rec->commands;
  out.blob = layer_blob_path(r.home, out.layer.digest);
  out.release = std::move(rel);
  return out;
}

namespace {

// DIR/bin/<program> → ../<tool>/<version>/bin/<program>, each replaced
// atomically (a new link renamed over the old one).
Result<void> link_programs(const ToolchainLayer& layer, const stdfs::path& dir, const std::string& rel_prefix) {
  for (const auto& c : layer.commands) {
    stdfs::path link = dir / "bin" / c;
    stdfs::path staged = dir / "bin" / ("." + c + ".strata-link");
    const std::string_view programs = program_dir(layer.release.tool);
    std::string target = "../" + rel_prefix + (programs.empty() ? "" : "/" + std::string(programs)) + "/" + c;
    ::unlink(staged.c_str());
    if (::symlink(target.c_str(), staged.c_str()) != 0) return fail(fs::io_error("creating", staged, errno));
    STRATA_TRY_VOID(fs::rename_file(staged, link));
  }
  return {};
}

}  // namespace

Result<InstalledDir> install_dir(const ToolchainLayer& layer, const stdfs::path& dir) {
  if (layer.prefix.size() <= kToolchainRoot.size() || !layer.prefix.starts_with(kToolchainRoot)) {
    return fail(ErrorCode::kInvalidArgument, "install_dir: not a toolchain layer");
  }
  InstalledDir out;
  const std::string rel_prefix = layer.prefix.substr(kToolchainRoot.size() + 1);  // node/20.18.0
  out.root = dir / rel_prefix;
  const stdfs::path marker = out.root / ".strata-toolchain";
  out.commands = layer.commands;
  for (const auto& e : layer.env) {
    std::string v = e;
    if (auto at = v.find(layer.prefix); at != std::string::npos)
      v.replace(at, layer.prefix.size(), stdfs::absolute(out.root).string());
    out.env.push_back(std::move(v));
  }
  out.env.insert(out.env.begin(), "PATH=" + stdfs::absolute(dir / "bin").string() + ":$PATH");
  if (std::error_code ec; stdfs::exists(out.root, ec)) {
    auto text = fs::read_file(marker, 4096);
    if (text && str::trim(*text) == layer.key) {
      out.already = true;
      STRATA_TRY_VOID(fs::make_dirs(dir / "bin"));
      STRATA_TRY_VOID(link_programs(layer, dir, rel_prefix));
      return out;
    }
    return fail(ErrorCode::kAlreadyExists, out.root.string() + " exists and is not " + layer.release.tool + " " +
                                               layer.release.version + " as strata installs it (key " +
                                               layer.key.substr(0, 12) + "); remove it or choose another --dir");
  }
  STRATA_TRY_VOID(fs::make_dirs(out.root.parent_path()));
  STRATA_TRY_VOID(fs::make_dirs(dir / "bin"));
  // Unpack the layer's toolchain directory into a staging directory beside
  // the destination, then rename it into place: a reader sees all or nothing.
  const stdfs::path staging = out.root.parent_path() / (".staging-" + layer.release.version + "-" +
                                                        std::to_string(::getpid()));
  STRATA_TRY_VOID(fs::remove_tree(staging));
  STRATA_TRY_VOID(fs::make_dirs(staging));
  const std::string inside = layer.prefix.substr(1);  // opt/strata/toolchains/node/20.18.0
  oci::ReadLimits limits;
  limits.duplicates = oci::DuplicatePaths::kRefuse;
  STRATA_TRY(auto reader, oci::TarReader::open_file(layer.blob, limits));
  auto unpack = [&]() -> Result<void> {
    while (true) {
      STRATA_TRY(auto next, reader->next());
      if (!next) return {};
      const oci::TarEntry& e = *next;
      if (e.path != inside && !e.path.starts_with(inside + "/")) continue;
      std::string rest = e.path.substr(std::min(e.path.size(), inside.size() + 1));
      stdfs::path to = rest.empty() || e.path == inside ? staging : staging / rest;
      switch (e.type) {
        case oci::TarEntryType::kDirectory:
          STRATA_TRY_VOID(fs::make_dirs(to));
          ::chmod(to.c_str(), e.mode & 0755);
          break;
        case oci::TarEntryType::kSymlink:
          if (::symlink(e.link_target.c_str(), to.c_str()) != 0) return fail(fs::io_error("creating", to, errno));
          break;
        case oci::TarEntryType::kHardlink: {
          stdfs::path target = staging / e.link_target.substr(std::min(e.link_target.size(), inside.size() + 1));
          if (::link(target.c_str(), to.c_str()) != 0) return fail(fs::io_error("linking", to, errno));
          break;
        }
        case oci::TarEntryType::kRegular: {
          STRATA_TRY(int fd, fs::open_for_write(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, e.mode & 0755));
          oci::FileSink sink(fd, to);
          auto w = reader->read_data(sink);
          ::fchmod(fd, e.mode & 0755);
          STRATA_TRY_VOID(fs::close_file(fd, to));
          if (!w) return w;
          break;
        }
        default: break;
      }
    }
  };
  // The staging directory goes on failure, best effort: the failure is the
  // error, and a leftover staging directory is never taken for a release.
  if (auto u = unpack(); !u) {
    (void)fs::remove_tree(staging);
    return fail(u.error().context("unpacking " + layer.release.tool + " " + layer.release.version + " into " +
                                  dir.string()));
  }
  STRATA_TRY_VOID(fs::write_file_atomic(staging / ".strata-toolchain", layer.key + "\n"));
  if (::rename(staging.c_str(), out.root.c_str()) != 0) {
    int err = errno;
    (void)fs::remove_tree(staging);
    return fail(fs::io_error("moving the toolchain into", out.root, err));
  }
  STRATA_TRY_VOID(link_programs(layer, dir, rel_prefix));
  return out;
}

}  // namespace strata::layer::toolchain
