#include "contract/scan/node_scanner.hpp"

#include <fnmatch.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <nlohmann/json.hpp>

#include "contract/knowledge/tool_version.hpp"
#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

using nlohmann::json;

// Installed copies checked per node_modules directory; a full install can
// hold tens of thousands, and only direct children can have been flagged by us.
constexpr std::size_t kMaxInstalledChecked = 5000;

std::string scalar(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number() || j.is_boolean()) return j.dump();
  return {};
}

// "pnpm@9.12.3+sha512.abc" → ("pnpm", "9.12.3").
std::pair<std::string, std::string> split_package_manager(std::string_view pm) {
  auto at = pm.rfind('@');
  if (at == std::string_view::npos || at == 0) return {std::string(pm), ""};
  std::string_view ver = pm.substr(at + 1);
  if (auto plus = ver.find('+'); plus != std::string_view::npos) ver = ver.substr(0, plus);
  return {std::string(pm.substr(0, at)), std::string(ver)};
}

std::vector<std::string> workspace_patterns(const json& pkg) {
  std::vector<std::string> out;
  const json* list = nullptr;
  if (pkg.contains("workspaces")) {
    const json& w = pkg["workspaces"];
    if (w.is_array()) list = &w;
    else if (w.is_object() && w.contains("packages") && w["packages"].is_array()) list = &w["packages"];
  }
  if (list)
    for (const auto& p : *list)
      if (p.is_string()) out.push_back(p.get<std::string>());
  return out;
}

bool matches_pattern(const std::string& dir, const std::string& pattern) {
  std::string pat = pattern;
  while (pat.starts_with("./")) pat.erase(0, 2);
  while (pat.size() > 1 && pat.ends_with('/')) pat.pop_back();
  // fnmatch has no "**"; without FNM_PATHNAME a "*" crosses "/", which is
  // what "**" means.
  int flags = pat.find("**") != std::string::npos ? 0 : FNM_PATHNAME;
  return fnmatch(pat.c_str(), dir.c_str(), flags) == 0;
}

class NodeScanner {
 public:
  explicit NodeScanner(ScanContext& ctx) : ctx_(ctx), kb_(ctx.kb()) {}

  void run() {
    auto manifests = ctx_.fs().files_named("package.json");
    std::vector<std::string> lockfiles;
    for (const char* n : {"package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock", "bun.lock", "bun.lockb"})
      for (auto& f : ctx_.fs().files_named(n)) lockfiles.push_back(f);
    if (manifests.empty() && lockfiles.empty()) return;
    ctx_.ecosystem("node");
    ctx_.needs_tool("node", manifests.empty() ? lockfiles : manifests, "a Node project");

    for (const auto& f : ctx_.fs().files_named("pnpm-workspace.yaml")) pnpm_workspace(f);
    for (const auto& rel : manifests) manifest(rel);
    mark_workspaces(manifests);
    for (const char* n : {".nvmrc", ".node-version"})
      for (const auto& f : ctx_.fs().files_named(n)) version_file(f, n);
    for (const auto& f : ctx_.fs().files_named(".npmrc")) npmrc(f);
    for (const auto& f : ctx_.fs().files_named(".yarnrc.yml")) yarnrc_yml(f);
    for (const auto& f : ctx_.fs().files_named(".yarnrc")) yarnrc(f);

    for (const auto& f : lockfiles) {
      std::string name = f.substr(f.rfind('/') == std::string::npos ? 0 : f.rfind('/') + 1);
      if (name == "package-lock.json" || name == "npm-shrinkwrap.json") { scan_package_lock(ctx_, f); managers_.insert("npm"); }
      else if (name == "pnpm-lock.yaml") { scan_pnpm_lock(ctx_, f); managers_.insert("pnpm"); }
      else if (name == "yarn.lock") { scan_yarn_lock(ctx_, f); managers_.insert("yarn"); }
      else if (name == "bun.lock") { scan_bun_lock(ctx_, f); managers_.insert("bun"); }
      else { ctx_.note(f, "binary bun lockfile; not read (bun.lock, the text format, is)"); managers_.insert("bun"); }
    }
    for (const auto& rel : manifests) installed_copies(dir_of(rel));
    default_registries();
  }

 private:
  void manifest(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    json pkg;
    try {
      pkg = json::parse(*text);
    } catch (const json::exception& e) {
      ctx_.warn(rel, std::string("malformed JSON, not used: ") + e.what());
      return;
    }
    if (!pkg.is_object()) {
      ctx_.warn(rel, "not a JSON object, not used");
      return;
    }
    std::string dir = dir_of(rel);
    std::string name = pkg.contains("name") ? scalar(pkg["name"]) : "";
    names_[dir] = name;
    if (dir == ".") for (auto& p : workspace_patterns(pkg)) patterns_.push_back(p);
    else for (auto& p : workspace_patterns(pkg)) patterns_.push_back(join_rel(dir, p));

    if (pkg.contains("engines") && pkg["engines"].is_object()) {
      for (const auto& [tool, spec] : pkg["engines"].items()) {
        if (tool != "node" && tool != "npm" && tool != "pnpm" && tool != "yarn" && tool != "bun") continue;
        std::string v = scalar(spec);
        ctx_.constraint(tool, ConstraintKind::kSupport, {rel, "engines." + tool, v}, parse_npm_range(v));
      }
    }
    if (pkg.contains("packageManager")) {
      std::string pm = scalar(pkg["packageManager"]);
      auto [tool, ver] = split_package_manager(pm);
      if (tool == "npm" || tool == "pnpm" || tool == "yarn" || tool == "bun") {
        managers_.insert(tool);
        declared_manager_ = tool;
        auto v = parse_version(ver);
        Result<Range> r = v ? Result<Range>(Range::exactly(*v))
                            : Result<Range>(fail(ErrorCode::kInvalidArgument, "no version after @"));
        ctx_.constraint(tool, ConstraintKind::kPin, {rel, "packageManager", pm}, r, "corepack installs exactly this version");
        if (tool == "pnpm" && v) ctx_.pnpm_versions[dir] = *v;
        corepack(rel, pm, tool, v);
      } else {
        ctx_.warn(rel, "packageManager names an unknown tool " + str::quote(pm));
      }
    }
    if (pkg.contains("devEngines") && pkg["devEngines"].is_object()) dev_engines(rel, pkg["devEngines"]);
    if (pkg.contains("volta") && pkg["volta"].is_object()) {
      for (const auto& [tool, spec] : pkg["volta"].items()) {
        if (tool == "extends") continue;
        std::string v = scalar(spec), note;
        auto r = tool == "node" ? read_node_version(v, kb_, note) : parse_npm_range(v);
        ctx_.constraint(tool, ConstraintKind::kPin, {rel, "volta." + tool, v}, r, note);
      }
    }
    for (const char* field : {"dependencies", "devDependencies", "optionalDependencies"}) {
      if (!pkg.contains(field) || !pkg[field].is_object()) continue;
      for (const auto& [dep, spec] : pkg[field].items()) declared_dependency(rel, field, dep, scalar(spec));
    }
    if (pkg.contains("pnpm") && pkg["pnpm"].is_object()) {
      const json& p = pkg["pnpm"];
      allowlist(rel, "pnpm.onlyBuiltDependencies", p.value("onlyBuiltDependencies", json()), true);
      allowlist(rel, "pnpm.neverBuiltDependencies", p.value("neverBuiltDependencies", json()), false);
      managers_.insert("pnpm");
    }
    if (pkg.contains("trustedDependencies")) {
      allowlist(rel, "trustedDependencies", pkg["trustedDependencies"], true);
    }
    // The repository's own package may build a native addon. Its install
    // scripts are visible here (a lockfile only says that they exist): one
    // that runs no native build tool is the project's own shell, not a build.
    if (ctx_.fs().is_file(join_rel(dir, "binding.gyp"))) {
      own_addon(rel, name, pkg);
    } else if (std::string scripts = install_scripts(pkg); !scripts.empty() && kb_.install_script(scripts)) {
      PackageSignals& s = ctx_.package("npm", name.empty() ? dir : name);
      s.install_script_text = scripts;
      s.direct = true;
      s.evidence.push_back({rel, "scripts", scripts});
    }
  }

  // corepack fetches the package manager itself before any install.
  void corepack(const std::string& rel, const std::string& pm, const std::string& tool, const std::optional<Version>& v) {
    std::string key = tool == "yarn" ? (v && v->major < 2 ? "yarn-classic" : "yarn-berry") : tool;
    const KbCorepack* c = kb_.corepack(key);
    if (!c) return;
    for (const auto& h : c->hosts)
      ctx_.egress(h, EgressOrigin::kInstallTime, c->reason, Evidence{rel, "packageManager", pm}, c->mirror_env);
  }

  void dev_engines(const std::string& rel, const json& de) {
    for (const char* key : {"runtime", "packageManager"}) {
      if (!de.contains(key)) continue;
      json entries = de[key].is_array() ? de[key] : json::array({de[key]});
      for (const auto& e : entries) {
        if (!e.is_object() || !e.contains("name") || !e.contains("version")) continue;
        std::string tool = scalar(e["name"]), v = scalar(e["version"]);
        if (tool.empty()) continue;
        ctx_.constraint(tool, ConstraintKind::kPin, {rel, std::string("devEngines.") + key, tool + "@" + v}, parse_npm_range(v));
      }
    }
  }

  // A dependency fetched from a git host or a URL instead of the registry
  // (`github:owner/repo`, `owner/repo`, `git+https://…`, `https://…/x.tgz`):
  // the install reaches that host. npm reads a GitHub repository through
  // github.com and its tarball through codeload.github.com. Over SSH
  // (`git+ssh://`, `git@host:`) no read-only HTTP policy can grant it: a note.
  void source_dependency(const std::string& rel, const std::string& field, const std::string& dep,
                         const std::string& spec) {
    Evidence ev{rel, field + "." + dep, spec};
    auto hosted = [&](std::vector<std::string> hosts, int port = 443) {
      for (const auto& h : hosts)
        ctx_.egress(h, EgressOrigin::kInstallTime, dep + " is installed from " + spec.substr(0, 80), ev, {}, port);
    };
    if (spec.starts_with("github:")) return hosted({"github.com", "codeload.github.com"});
    if (spec.starts_with("gist:")) return hosted({"gist.github.com", "codeload.github.com"});
    if (spec.starts_with("gitlab:")) return hosted({"gitlab.com"});
    if (spec.starts_with("bitbucket:")) return hosted({"bitbucket.org"});
    if (spec.starts_with("git+ssh:") || spec.starts_with("ssh:") || spec.starts_with("git@") ||
        spec.starts_with("git://")) {
      ctx_.note(rel, field + "." + dep + ": installed over " + (spec.starts_with("git://") ? "the git protocol" : "SSH") +
                         " (" + spec.substr(0, 80) + "), which a read-only HTTP egress policy cannot grant");
      return;
    }
    for (std::string_view scheme : {"git+https://", "git+http://", "https://", "http://"})
      if (spec.starts_with(scheme)) {
        std::string host = url_host(spec);
        int port = scheme.ends_with("http://") ? 80 : 443;
        if (host == "github.com") return hosted({"github.com", "codeload.github.com"});
        if (!host.empty()) hosted({host}, port);
        return;
      }
    // GitHub's shorthand: "owner/repo" or "owner/repo#ref", nothing else.
    auto slash = spec.find('/');
    bool shorthand = slash != std::string::npos && slash > 0 && spec.find('/', slash + 1) == std::string::npos &&
                     !spec.starts_with('@') && !spec.starts_with('.') && !spec.starts_with('~') &&
                     spec.find(':') == std::string::npos && spec.find(' ') == std::string::npos;
    if (shorthand) hosted({"github.com", "codeload.github.com"});
  }

  void declared_dependency(const std::string& rel, const std::string& field, const std::string& dep,
                           const std::string& spec) {
    source_dependency(rel, field, dep, spec);
    bool known = kb_.package("npm", dep) != nullptr;
    if (!known) return;  // unknown names only matter with a build signal (lockfiles, node_modules)
    PackageSignals& s = ctx_.package("npm", dep);
    s.direct = true;
    s.evidence.push_back({rel, field + "." + dep, spec});
    if (auto r = parse_npm_range(spec); r && !r->unbounded_below()) {
      if (auto f = r->floor(); f && (!s.declared || *f < *s.declared)) s.declared = f;
    }
  }

  void allowlist(const std::string& rel, const std::string& field, const json& list, bool allow) {
    if (list.is_array()) {
      for (const auto& n : list) {
        if (!n.is_string()) continue;
        PackageSignals& s = ctx_.package("npm", n.get<std::string>());
        (allow ? s.build_allowed : s.build_denied) = true;
        s.evidence.push_back({rel, field, n.get<std::string>()});
      }
    }
  }

  void own_addon(const std::string& rel, const std::string& name, const json& pkg) {
    std::string label = name.empty() ? dir_of(rel) : name;
    PackageSignals& s = ctx_.package("npm", label);
    std::string bg = join_rel(dir_of(rel), "binding.gyp");
    s.evidence.push_back({bg, "file", "present"});
    bool gypfile_false = pkg.contains("gypfile") && pkg["gypfile"].is_boolean() && !pkg["gypfile"].get<bool>();
    std::string scripts = install_scripts(pkg);
    if (!scripts.empty()) s.install_script_text = scripts;
    if (!gypfile_false && scripts.empty()) s.binding_gyp = true;
    s.direct = true;
  }

  static std::string install_scripts(const json& pkg) {
    std::string out;
    if (!pkg.contains("scripts") || !pkg["scripts"].is_object()) return out;
    for (const char* k : {"preinstall", "install", "postinstall"})
      if (pkg["scripts"].contains(k)) out += (out.empty() ? "" : " ; ") + scalar(pkg["scripts"][k]);
    return out;
  }

  // node_modules/<pkg> copies that are present show what npm would run.
  void installed_copies(const std::string& dir) {
    std::string nm = join_rel(dir, "node_modules");
    if (!ctx_.fs().is_dir(nm)) return;
    std::vector<std::string> pkgs;
    for (const auto& e : ctx_.fs().list_dir(nm)) {
      if (e.starts_with(".")) continue;
      if (e.starts_with("@")) {
        for (const auto& s : ctx_.fs().list_dir(nm + "/" + e)) pkgs.push_back(e + "/" + s);
      } else {
        pkgs.push_back(e);
      }
      if (pkgs.size() > kMaxInstalledChecked) break;
    }
    if (pkgs.size() > kMaxInstalledChecked) {
      ctx_.note(nm, "more than " + std::to_string(kMaxInstalledChecked) + " installed packages; checked the first ones");
      pkgs.resize(kMaxInstalledChecked);
    }
    for (const auto& p : pkgs) {
      std::string base = nm + "/" + p;
      bool gyp = ctx_.fs().is_file(base + "/binding.gyp");
      const bool known = kb_.package("npm", p) != nullptr;
      if (!gyp && !known) continue;
      auto text = ctx_.fs().read_text(base + "/package.json");
      if (!text) continue;
      json pkg;
      try {
        pkg = json::parse(*text);
      } catch (const json::exception& e) {
        ctx_.warn(base + "/package.json", std::string("malformed JSON, not used: ") + e.what());
        continue;
      }
      if (!pkg.is_object()) continue;
      PackageSignals& s = ctx_.package("npm", p);
      if (pkg.contains("version")) {
        if (auto v = parse_version(scalar(pkg["version"]))) s.locked = v;
      }
      std::string scripts = install_scripts(pkg);
      if (!scripts.empty()) {
        s.install_script_text = scripts;
        s.install_script = true;
        s.evidence.push_back({base + "/package.json", "scripts", scripts});
      }
      bool gypfile_false = pkg.contains("gypfile") && pkg["gypfile"].is_boolean() && !pkg["gypfile"].get<bool>();
      if (gyp && scripts.empty() && !gypfile_false) {
        s.binding_gyp = true;
        s.evidence.push_back({base + "/binding.gyp", "file", "present, no install script: npm runs node-gyp rebuild"});
      }
    }
  }

  void mark_workspaces(const std::vector<std::string>& manifests) {
    if (patterns_.empty() && !root_is_monorepo_) return;
    std::string manager = declared_manager_.empty() ? (managers_.count("pnpm") ? "pnpm" : managers_.count("yarn") ? "yarn" : "npm")
                                                     : declared_manager_;
    for (const auto& rel : manifests) {
      std::string dir = dir_of(rel);
      if (dir == ".") {
        ctx_.workspace({".", names_["."], manager});
        continue;
      }
      bool in = false;
      for (const auto& p : patterns_) {
        if (p.starts_with("!")) {
          if (matches_pattern(dir, p.substr(1))) in = false;
        } else if (matches_pattern(dir, p)) {
          in = true;
        }
      }
      if (in) ctx_.workspace({dir, names_[dir], manager});
    }
  }

  void version_file(const std::string& rel, const std::string& kind) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    // nvm reads the first line that is not a comment.
    std::string line;
    for (auto l : str::split(*text, '\n')) {
      if (auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
      l = str::trim(l);
      if (!l.empty()) {
        line = std::string(l);
        break;
      }
    }
    if (line.empty()) {
      ctx_.warn(rel, "empty version file");
      return;
    }
    std::string note;
    auto r = read_node_version(line, kb_, note);
    if (note == "unknown") {
      ctx_.note(rel, "version " + str::quote(line) + " names no release; no floor taken from it");
      return;
    }
    ctx_.constraint("node", ConstraintKind::kPin, {rel, kind, line}, r, note);
  }

  void pnpm_workspace(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    managers_.insert("pnpm");
    root_is_monorepo_ = true;
    auto loaded = oci::load_yaml(*text, "");
    if (!loaded) {
      ctx_.warn(rel, "not used: " + loaded.error().message());
      return;
    }
    try {
      const YAML::Node doc = *loaded;
      if (!doc.IsMap()) return;
      std::string dir = dir_of(rel);
      if (doc["packages"] && doc["packages"].IsSequence())
        for (const auto& p : doc["packages"]) patterns_.push_back(dir == "." ? p.as<std::string>() : join_rel(dir, p.as<std::string>()));
      for (const char* key : {"onlyBuiltDependencies", "neverBuiltDependencies"}) {
        if (!doc[key] || !doc[key].IsSequence()) continue;
        for (const auto& n : doc[key]) {
          PackageSignals& s = ctx_.package("npm", n.as<std::string>());
          (std::string(key) == "onlyBuiltDependencies" ? s.build_allowed : s.build_denied) = true;
          s.evidence.push_back({rel, key, n.as<std::string>()});
        }
      }
      if (doc["allowBuilds"] && doc["allowBuilds"].IsMap()) {
        for (const auto& kv : doc["allowBuilds"]) {
          std::string name = kv.first.as<std::string>();
          bool yes = kv.second.IsScalar() && kv.second.as<std::string>() == "true";
          PackageSignals& s = ctx_.package("npm", name);
          (yes ? s.build_allowed : s.build_denied) = true;
          s.evidence.push_back({rel, "allowBuilds." + name, yes ? "true" : kv.second.as<std::string>("")});
        }
      }
      if (doc["registry"] && doc["registry"].IsScalar()) {
        std::string url = doc["registry"].as<std::string>();
        ctx_.egress_url(url, EgressOrigin::kConfig, "npm registry", {rel, "registry", url});
        has_registry_config_ = true;
      }
    } catch (const YAML::Exception& e) {
      ctx_.warn(rel, std::string("malformed YAML, not used: ") + e.what());
    }
  }

  void npmrc(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    for (auto line : str::split(*text, '\n')) {
      line = str::trim(line);
      if (line.empty() || line.front() == '#' || line.front() == ';') continue;
      auto eq = line.find('=');
      if (eq == std::string_view::npos) continue;
      std::string key(str::trim(line.substr(0, eq)));
      std::string value(str::trim(line.substr(eq + 1)));
      if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'')) value = value.substr(1, value.size() - 2);
      if (key == "registry" || (key.starts_with('@') && key.ends_with(":registry"))) {
        ctx_.egress_url(value, EgressOrigin::kConfig, key == "registry" ? "npm registry" : "npm registry for scope " + key.substr(0, key.find(':')),
                        {rel, key, value});
        if (key == "registry") has_registry_config_ = true;
      } else if (key.starts_with("//")) {
        // "//host/path/:_authToken=…": reveals a registry host; never echo the secret.
        std::string host = url_host("https:" + key);
        ctx_.egress(host, EgressOrigin::kConfig, "registry credentials configured",
                    Evidence{rel, key.substr(0, key.rfind(':')), "(credential, not shown)"});
      } else if (key == "sass_binary_site" || key.ends_with("_binary_host") || key.ends_with("_binary_host_mirror")) {
        ctx_.egress_url(value, EgressOrigin::kConfig, "native binary mirror", {rel, key, value});
      }
    }
  }

  void yarnrc_yml(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    managers_.insert("yarn");
    auto loaded = oci::load_yaml(*text, "");
    if (!loaded) {
      ctx_.warn(rel, "not used: " + loaded.error().message());
      return;
    }
    try {
      const YAML::Node doc = *loaded;
      if (!doc.IsMap()) return;
      if (doc["npmRegistryServer"]) {
        std::string url = doc["npmRegistryServer"].as<std::string>();
        ctx_.egress_url(url, EgressOrigin::kConfig, "yarn registry", {rel, "npmRegistryServer", url});
        has_registry_config_ = true;
      }
      if (doc["npmScopes"] && doc["npmScopes"].IsMap())
        for (const auto& kv : doc["npmScopes"]) {
          if (!kv.second.IsMap() || !kv.second["npmRegistryServer"]) continue;
          std::string url = kv.second["npmRegistryServer"].as<std::string>();
          std::string scope = kv.first.as<std::string>();
          ctx_.egress_url(url, EgressOrigin::kConfig, "yarn registry for scope @" + scope,
                          {rel, "npmScopes." + scope + ".npmRegistryServer", url});
        }
      if (doc["enableScripts"] && doc["enableScripts"].as<std::string>() == "false")
        ctx_.note(rel, "enableScripts: false — yarn will not run dependency build scripts");
    } catch (const YAML::Exception& e) {
      ctx_.warn(rel, std::string("malformed YAML, not used: ") + e.what());
    }
  }

  void yarnrc(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    for (auto line : str::split(*text, '\n')) {
      auto f = str::split_ws(line);
      if (f.size() != 2) continue;
      std::string key(f[0]), value(f[1]);
      auto unq = [](std::string s) { return s.size() >= 2 && s.front() == '"' ? s.substr(1, s.size() - 2) : s; };
      key = unq(key);
      value = unq(value);
      if (key == "registry" || key.ends_with(":registry")) {
        ctx_.egress_url(value, EgressOrigin::kConfig, "yarn registry", {rel, key, value});
        if (key == "registry") has_registry_config_ = true;
      }
    }
  }

  void default_registries() {
    if (has_registry_config_) return;
    bool yarn = declared_manager_ == "yarn" || (declared_manager_.empty() && managers_.count("yarn") && !managers_.count("npm") && !managers_.count("pnpm"));
    if (yarn)
      ctx_.egress("registry.yarnpkg.com", EgressOrigin::kDefault, "yarn's default registry");
    else
      ctx_.egress("registry.npmjs.org", EgressOrigin::kDefault, "the default npm registry");
  }

  ScanContext& ctx_;
  const KnowledgeBase& kb_;
  std::set<std::string> managers_;
  std::string declared_manager_;
  std::vector<std::string> patterns_;
  std::map<std::string, std::string> names_;
  bool root_is_monorepo_ = false;
  bool has_registry_config_ = false;
};

}  // namespace

void scan_node(ScanContext& ctx) { NodeScanner(ctx).run(); }

}  // namespace strata::contract
