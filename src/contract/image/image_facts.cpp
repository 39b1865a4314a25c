#include "contract/image/image_facts.hpp"

#include <algorithm>

#include "contract/image/facts_cache.hpp"
#include "contract/image/runtime_markers.hpp"
#include "layer/debian/dpkg_status.hpp"
#include "oci/image_fs.hpp"
#include "oci/manifest.hpp"
#include "util/strings.hpp"

namespace strata::contract::image {
namespace {

// Docker's PATH when the config sets none.
constexpr std::string_view kDefaultPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

int kind_rank(const std::string& k) { return k == "dpkg" ? 0 : k == "env" ? 1 : 2; }

std::vector<std::string> path_of(const std::vector<std::string>& env) {
  std::string_view path = kDefaultPath;
  for (const auto& e : env)
    if (e.starts_with("PATH=")) path = std::string_view(e).substr(5);
  std::vector<std::string> out;
  for (auto part : str::split(path, ':'))
    if (!part.empty()) out.emplace_back(part);
  return out;
}

// Executables on PATH, first directory first (what a shell would run).
std::map<std::string, std::string> path_commands(const oci::ImageFilesystem& fs, const std::vector<std::string>& path) {
  std::map<std::string, std::string> out;
  for (const auto& dir : path) {
    auto names = fs.list(dir);
    if (!names) continue;
    for (const auto& n : *names) {
      if (out.contains(n)) continue;
      std::string full = (dir.ends_with('/') ? dir : dir + "/") + n;
      auto node = fs.lookup(full);  // a broken symlink is no command
      if (!node || (*node)->type != oci::TarEntryType::kRegular || ((*node)->mode & 0111) == 0) continue;
      out[n] = full;
    }
  }
  return out;
}

Result<ImageFacts> facts_of(oci::Store& store, const oci::RawManifest& raw, const oci::ImageManifest& m,
                            const std::string& where) {
  ImageFacts f;
  f.manifest_digest = raw.descriptor.digest.str();
  f.annotations = m.annotations;
  STRATA_TRY(auto cfg_bytes, oci::read_blob(store, m.config));
  STRATA_TRY(auto config, oci::parse_config(std::move(cfg_bytes), where + " config"));
  f.platform = config.platform();
  f.env = config.env();
  f.labels = config.labels();
  f.path = path_of(f.env);

  oci::ImageFsOptions opts;
  opts.capture = [status = oci::capture_paths(layer::dpkg_database_capture())](std::string_view p) {
    return status(p) || is_version_file(p);
  };
  STRATA_TRY(auto fs, with_context(oci::ImageFilesystem::load(store, m, opts), where));

  STRATA_TRY(auto database, with_context(layer::read_image_dpkg_database(fs), where));
  for (const auto& installed : database.packages) {
    const auto& p = installed.package;
    f.packages[p.name] = p.version;
    for (const auto& v : p.provides) {
      auto& providers = f.provides[v.name];
      if (std::find(providers.begin(), providers.end(), p.name) == providers.end()) providers.push_back(p.name);
    }
    if (auto tool = runtime_of_package(p.name))
      f.runtimes.push_back({*tool, upstream_version(p.version), "dpkg", "dpkg " + p.name + " " + p.version});
  }
  for (const auto& e : f.env)
    if (auto r = runtime_of_env(e)) f.runtimes.push_back(*r);
  for (const auto& [path, node] : fs.nodes()) {
    if (node.type != oci::TarEntryType::kRegular) continue;
    if (auto r = runtime_of_toolchain_entry(path)) {
      f.runtimes.push_back(std::move(*r));
      continue;
    }
    if (!is_version_file(path)) continue;
    // The size is known from the layer before the bytes are looked at: a
    // version file is a few lines, one larger is not read at all.
    if (node.size > kMaxVersionFileBytes) {
      f.notes.push_back(oversize_version_file_note(path, node.size));
      continue;
    }
    auto text = fs.read_small_file(path);
    if (!text) continue;
    auto reading = read_version_file(path, *text);
    if (reading.fact) f.runtimes.push_back(std::move(*reading.fact));
    if (!reading.note.empty()) f.notes.push_back(std::move(reading.note));
  }
  if (auto toolchains = fs.list(kRustupToolchains)) {
    for (const auto& t : *toolchains)
      if (auto r = runtime_of_rustup_toolchain(t)) f.runtimes.push_back(*r);
  }
  std::stable_sort(f.runtimes.begin(), f.runtimes.end(), [](const RuntimeFact& a, const RuntimeFact& b) {
    return std::make_tuple(a.tool, kind_rank(a.kind), a.source) < std::make_tuple(b.tool, kind_rank(b.kind), b.source);
  });
  f.commands = path_commands(fs, f.path);
  return f;
}

}  // namespace

const std::string* ImageFacts::package_version(std::string_view name) const {
  auto it = packages.find(std::string(name));
  return it == packages.end() ? nullptr : &it->second;
}

const std::string* ImageFacts::installed_satisfier(std::string_view name) const {
  if (auto it = packages.find(std::string(name)); it != packages.end()) return &it->first;
  auto it = provides.find(std::string(name));
  return it == provides.end() || it->second.empty() ? nullptr : &it->second.front();
}

const std::string* ImageFacts::command(std::string_view name) const {
  auto it = commands.find(std::string(name));
  return it == commands.end() ? nullptr : &it->second;
}

std::vector<const RuntimeFact*> ImageFacts::runtime(std::string_view tool) const {
  std::vector<const RuntimeFact*> out;
  for (const auto& r : runtimes)
    if (r.tool == tool) out.push_back(&r);
  return out;
}

Result<ImageFacts> read_image_facts(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                    const FactsCache* cache) {
  std::string where = store.describe() + (ref.empty() ? "" : ":" + std::string(ref));
  STRATA_TRY(auto fetched, oci::fetch_platform_manifest(store, ref, platform, where));
  const auto* m = &std::get<oci::ImageManifest>(fetched.parsed);
  if (cache) {
    if (auto hit = cache->find(fetched.raw.descriptor.digest.str())) return std::move(*hit);
  }
  STRATA_TRY(auto facts, facts_of(store, fetched.raw, *m, where));
  if (!facts.platform.architecture.empty() && !oci::platform_matches(platform, facts.platform)) {
    return fail(ErrorCode::kInvalidArgument, where + " is a " + facts.platform.str() + " image, not " + platform.str());
  }
  if (cache) cache->remember(facts);
  return facts;
}

}  // namespace strata::contract::image
