#include "contract/knowledge/knowledge.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "contract/knowledge/knowledge_data.hpp"

namespace strata::contract {
namespace {

// The value for `key` in a transparent map, or nullptr.
template <class Map>
const typename Map::mapped_type* find_in(const Map& m, std::string_view key) {
  auto it = m.find(key);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

std::optional<BuildKind> parse_build_kind(std::string_view s) {
  if (s == "none") return BuildKind::kNone;
  if (s == "prebuilt") return BuildKind::kPrebuilt;
  if (s == "download") return BuildKind::kDownload;
  if (s == "compile") return BuildKind::kCompile;
  return std::nullopt;
}

// Turns the YAML tables into KnowledgeBase fields. yaml-cpp throws on type
// errors; load() catches them and names the table, so a bad edit to a table
// fails every scan loudly instead of silently dropping facts.
class KnowledgeLoader {
 public:
  explicit KnowledgeLoader(KnowledgeBase& kb) : kb_(kb) {}

  Result<void> load(const std::string& file, const std::string& text) {
    try {
      YAML::Node doc = YAML::Load(text);
      if (!doc.IsMap()) return fail(ErrorCode::kCorruption, file + ": not a mapping");
      if (doc["as_of"]) kb_.dates_[file] = doc["as_of"].as<std::string>();
      for (const char* eco : {"npm", "pypi", "crates", "go", "gem", "hex", "nuget", "maven"})
        if (doc[eco]) STRATA_TRY_VOID(packages(file, eco, doc[eco]));
      if (doc["toolchains"]) toolchains(doc["toolchains"]);
      if (doc["install_scripts"]) STRATA_TRY_VOID(scripts(file, doc["install_scripts"]));
      if (doc["cmake_packages"]) string_lists(doc["cmake_packages"], kb_.cmake_);
      if (doc["pkgconfig_modules"]) string_lists(doc["pkgconfig_modules"], kb_.pkgconfig_);
      if (doc["runtime_packages"]) string_lists(doc["runtime_packages"], kb_.runtime_);
      if (doc["programs"]) string_lists(doc["programs"], kb_.programs_);
      if (doc["alpine_packages"]) string_lists(doc["alpine_packages"], kb_.alpine_);
      if (doc["needed_recommends"]) string_lists(doc["needed_recommends"], kb_.needed_recommends_);
      if (doc["metapackages"]) string_lists(doc["metapackages"], kb_.metapackages_);
      if (doc["foreign_apt_names"]) string_lists(doc["foreign_apt_names"], kb_.foreign_apt_names_);
      if (doc["corepack"])
        for (const auto& kv : doc["corepack"])
          kb_.corepack_[kv.first.as<std::string>()] = {strings(kv.second["hosts"]), string_or(kv.second["mirror_env"]),
                                                       string_or(kv.second["reason"])};
      if (doc["images"])
        for (const auto& kv : doc["images"]) kb_.images_[kv.first.as<std::string>()] = kv.second.as<std::string>();
      if (doc["runtime_installs"])
        for (const auto& kv : doc["runtime_installs"])
          kb_.runtime_installs_[kv.first.as<std::string>()] = kv.second.as<std::string>();
      if (doc["install_commands"])
        for (const auto& kv : doc["install_commands"])
          kb_.install_commands_[kv.first.as<std::string>()] = {kv.second["ecosystem"].as<std::string>(),
                                                              strings(kv.second["tools"]),
                                                              strings(kv.second["subcommands"]),
                                                              strings(kv.second["hosts"]), string_or(kv.second["reason"])};
      if (doc["php_extensions"])
        for (const auto& kv : doc["php_extensions"])
          kb_.php_extensions_[kv.first.as<std::string>()] = {strings(kv.second["debian"]), strings(kv.second["build"]),
                                                             kv.second["pecl"] && kv.second["pecl"].as<bool>()};
      if (doc["node"]) node(doc["node"]);
      if (doc["rust"]) rust(doc["rust"]);
      if (doc["lockfile_floors"]) lock_floors(doc["lockfile_floors"]);
    } catch (const YAML::Exception& e) {
      return fail(ErrorCode::kCorruption, "knowledge table " + file + ": " + e.what());
    }
    return {};
  }

 private:
  static std::vector<std::string> strings(const YAML::Node& n) {
    std::vector<std::string> out;
    if (n && n.IsSequence())
      for (const auto& x : n) out.push_back(x.as<std::string>());
    return out;
  }
  static std::string string_or(const YAML::Node& n, std::string def = {}) {
    return n ? n.as<std::string>() : def;
  }

  template <class Map>
  static void string_lists(const YAML::Node& n, Map& out) {
    for (const auto& kv : n) out[kv.first.as<std::string>()] = strings(kv.second);
  }

  Result<void> packages(const std::string& file, const std::string& eco, const YAML::Node& n) {
    for (const auto& kv : n) {
      std::string name = kv.first.as<std::string>();
      KbPackage pkg;
      pkg.build_deps = strings(kv.second["build_deps"]);
      pkg.run_deps = strings(kv.second["run_deps"]);
      pkg.run_deps_when_compiled = strings(kv.second["run_deps_when_compiled"]);
      pkg.egress = strings(kv.second["egress"]);
      pkg.egress_reason = string_or(kv.second["egress_reason"]);
      pkg.family = kv.second["family"] && kv.second["family"].as<bool>();
      for (const auto& x : kv.second["extras"]) pkg.extras[x.first.as<std::string>()] = strings(x.second);
      for (const auto& x : kv.second["pulls"]) {
        KbPull pull{string_or(x["feature"], "*"), std::nullopt, strings(x["crates"])};
        if (x["when"]) {
          auto range = parse_npm_range(x["when"].as<std::string>());
          if (!range) return fail(range.error().context(file + ": " + eco + "/" + name + " pulls"));
          pull.when = *range;
        }
        pkg.pulls.push_back(std::move(pull));
      }
      for (const auto& f : kv.second["features"]) {
        KbFeature feat;
        feat.enabled_by = strings(f.second["enabled_by"]);
        feat.note = string_or(f.second["note"]);
        feat.build_deps = strings(f.second["build_deps"]);
        feat.run_deps = strings(f.second["run_deps"]);
        pkg.features[f.first.as<std::string>()] = std::move(feat);
      }
      for (const auto& r : kv.second["rules"]) {
        KbRule rule;
        auto kind = parse_build_kind(string_or(r["build"]));
        if (!kind) return fail(ErrorCode::kCorruption, file + ": " + eco + "/" + name + ": bad build kind");
        rule.build = *kind;
        rule.fallback = string_or(r["fallback"]);
        rule.note = string_or(r["note"]);
        rule.egress = strings(r["egress"]);
        rule.mirror_env = string_or(r["mirror_env"]);
        rule.build_deps = strings(r["build_deps"]);
        if (r["when"]) {
          rule.when_text = r["when"].as<std::string>();
          auto range = eco == "pypi" ? parse_pep440(rule.when_text) : parse_npm_range(rule.when_text);
          if (!range) return fail(range.error().context(file + ": " + eco + "/" + name));
          rule.when = *range;
        }
        pkg.rules.push_back(std::move(rule));
      }
      if (pkg.rules.empty()) return fail(ErrorCode::kCorruption, file + ": " + eco + "/" + name + ": no rules");
      kb_.packages_[eco][name] = std::move(pkg);
    }
    return {};
  }

  void toolchains(const YAML::Node& n) {
    for (const auto& kv : n) {
      KbToolchain t;
      t.build_deps = strings(kv.second["build"]);
      t.commands = strings(kv.second["commands"]);
      for (const auto& e : kv.second["egress"])
        t.egress.emplace_back(e["host"].as<std::string>(), string_or(e["reason"]));
      kb_.toolchains_[kv.first.as<std::string>()] = std::move(t);
    }
  }

  Result<void> scripts(const std::string& file, const YAML::Node& n) {
    for (const auto& s : n) {
      KbScriptPattern p;
      p.contains = s["contains"].as<std::string>();
      auto kind = parse_build_kind(string_or(s["build"]));
      if (!kind) return fail(ErrorCode::kCorruption, file + ": install script " + p.contains + ": bad build kind");
      p.build = *kind;
      p.fallback = string_or(s["fallback"]);
      p.egress = strings(s["egress"]);
      p.build_deps = strings(s["build_deps"]);
      p.commands = strings(s["commands"]);
      p.reason = string_or(s["reason"]);
      kb_.scripts_.push_back(std::move(p));
    }
    return {};
  }

  void node(const YAML::Node& n) {
    for (const auto& kv : n["lts_codenames"]) kb_.lts_[kv.first.as<std::string>()] = kv.second.as<int>();
    kb_.latest_aliases_ = strings(n["latest_aliases"]);
    kb_.unknown_aliases_ = strings(n["unknown_aliases"]);
  }

  void rust(const YAML::Node& n) {
    for (const auto& kv : n["editions"]) kb_.editions_[kv.first.as<std::string>()] = kv.second.as<std::string>();
    kb_.floating_channels_ = strings(n["floating_channels"]);
  }

  void lock_floors(const YAML::Node& n) {
    for (const auto& kv : n) {
      KbLockFloor f;
      f.tool = kv.second["tool"].as<std::string>();
      for (const auto& v : kv.second["versions"]) f.versions[v.first.as<std::string>()] = v.second.as<std::string>();
      for (const auto& t : kv.second["thresholds"])
        f.thresholds.emplace_back(t["min"].as<int>(), t["range"].as<std::string>());
      f.range = string_or(kv.second["range"]);
      kb_.lock_floors_[kv.first.as<std::string>()] = std::move(f);
    }
  }

  KnowledgeBase& kb_;
};

Result<KnowledgeBase> KnowledgeBase::parse(const std::vector<std::pair<std::string, std::string>>& files) {
  KnowledgeBase kb;
  KnowledgeLoader loader(kb);
  for (const auto& [name, text] : files) STRATA_TRY_VOID(loader.load(name, text));
  return kb;
}

Result<KnowledgeBase> KnowledgeBase::embedded() {
  std::vector<std::pair<std::string, std::string>> files;
  for (std::size_t i = 0; i < kKnowledgeFileCount; ++i)
    files.emplace_back(kKnowledgeFiles[i].name, kKnowledgeFiles[i].text);
  return parse(files);
}

const KbPackage* KnowledgeBase::package(std::string_view eco, std::string_view name) const {
  auto e = packages_.find(eco);
  if (e == packages_.end()) return nullptr;
  auto p = e->second.find(name);
  return p == e->second.end() ? nullptr : &p->second;
}

const std::string* KnowledgeBase::entry_for(std::string_view eco, std::string_view name) const {
  auto e = packages_.find(eco);
  if (e == packages_.end()) return nullptr;
  // NuGet package IDs are case-insensitive (`aspire.hosting.postgresql` is
  // Aspire.Hosting.PostgreSQL); its table has a few dozen entries.
  auto find = [&](std::string_view key) {
    auto p = e->second.find(key);
    if (p != e->second.end() || eco != "nuget") return p;
    return std::find_if(e->second.begin(), e->second.end(), [&](const auto& kv) {
      return kv.first.size() == key.size() && std::equal(key.begin(), key.end(), kv.first.begin(), [](char a, char b) {
               return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
             });
    });
  };
  if (auto p = find(name); p != e->second.end()) return &p->first;
  for (auto cut = name.find_last_of(".:/"); cut != std::string_view::npos && cut > 0;
       cut = name.find_last_of(".:/", cut - 1)) {
    auto p = find(name.substr(0, cut));
    if (p != e->second.end() && p->second.family) return &p->first;
  }
  return nullptr;
}

const KbRule* KnowledgeBase::match(std::string_view eco, std::string_view name,
                                   const std::optional<Version>& version) const {
  const KbPackage* pkg = package(eco, name);
  if (!pkg) return nullptr;
  if (!version) return &pkg->rules.front();
  for (const auto& r : pkg->rules)
    if (!r.when || r.when->contains(*version)) return &r;
  return nullptr;
}

const KbToolchain* KnowledgeBase::toolchain(std::string_view key) const {
  return find_in(toolchains_, key);
}

const KbScriptPattern* KnowledgeBase::install_script(std::string_view script) const {
  for (const auto& p : scripts_)
    if (script.find(p.contains) != std::string_view::npos) return &p;
  return nullptr;
}

const std::vector<std::string>* KnowledgeBase::cmake_package(std::string_view name) const {
  return find_in(cmake_, name);
}

const std::vector<std::string>* KnowledgeBase::pkgconfig_module(std::string_view name) const {
  return find_in(pkgconfig_, name);
}

const KbLockFloor* KnowledgeBase::lock_floor(std::string_view lockfile) const {
  return find_in(lock_floors_, lockfile);
}

const std::vector<std::string>* KnowledgeBase::runtime_packages(std::string_view dev) const {
  return find_in(runtime_, dev);
}

const std::vector<std::string>* KnowledgeBase::program_packages(std::string_view program) const {
  return find_in(programs_, program);
}

const std::vector<std::string>* KnowledgeBase::needed_recommends(std::string_view package) const {
  return find_in(needed_recommends_, package);
}

const std::vector<std::string>* KnowledgeBase::metapackage(std::string_view package) const {
  return find_in(metapackages_, package);
}

const std::vector<std::string>* KnowledgeBase::foreign_apt_name(std::string_view package) const {
  return find_in(foreign_apt_names_, package);
}

const std::vector<std::string>* KnowledgeBase::alpine_package(std::string_view name) const {
  return find_in(alpine_, name);
}

const KbCorepack* KnowledgeBase::corepack(std::string_view manager) const {
  return find_in(corepack_, manager);
}

const std::string* KnowledgeBase::runtime_install(std::string_view package) const {
  return find_in(runtime_installs_, package);
}

const KbInstallCommand* KnowledgeBase::install_command(std::string_view command) const {
  return find_in(install_commands_, command);
}

const std::string* KnowledgeBase::image_tool(std::string_view image) const {
  return find_in(images_, image);
}

const KbPhpExtension* KnowledgeBase::php_extension(std::string_view name) const {
  return find_in(php_extensions_, name);
}

std::optional<int> KnowledgeBase::node_lts_major(std::string_view codename) const {
  auto it = lts_.find(codename);
  if (it == lts_.end()) return std::nullopt;
  return it->second;
}

std::vector<int> KnowledgeBase::node_lts_majors() const {
  std::vector<int> out;
  for (const auto& [name, major] : lts_) out.push_back(major);
  std::sort(out.begin(), out.end());
  return out;
}

bool KnowledgeBase::node_latest_alias(std::string_view a) const {
  return std::find(latest_aliases_.begin(), latest_aliases_.end(), a) != latest_aliases_.end();
}
bool KnowledgeBase::node_unknown_alias(std::string_view a) const {
  return std::find(unknown_aliases_.begin(), unknown_aliases_.end(), a) != unknown_aliases_.end();
}
bool KnowledgeBase::rust_floating_channel(std::string_view c) const {
  return std::find(floating_channels_.begin(), floating_channels_.end(), c) != floating_channels_.end();
}

std::optional<std::string> KnowledgeBase::rust_edition_floor(std::string_view edition) const {
  auto it = editions_.find(edition);
  if (it == editions_.end()) return std::nullopt;
  return it->second;
}

}  // namespace strata::contract
