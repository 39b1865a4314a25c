#include "contract/route/router.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "contract/model/contract_reader.hpp"
#include "contract/image/runtime_markers.hpp"
#include "contract/route/tools.hpp"
#include "layer/toolchain/release.hpp"
#include "util/version_range.hpp"
#include "util/strings.hpp"

namespace strata::contract::route {
namespace {

// What a runtime row asks for: the contract's satisfying range when it
// reads, else at least the floor.
struct Want {
  std::optional<Range> range;
  std::optional<Version> floor;
  std::string text;  // ">=22.0.0", ">=20.0.0 <21.0.0", "any"

  bool admits(std::string_view version) const {
    auto v = parse_version(version);
    if (!v) return false;
    if (range) return range->contains(*v);
    return !floor || *v >= *floor;
  }
};

Want want_of(const RuntimeFloor& rf) {
  Want w;
  if (!rf.floor.empty()) w.floor = parse_version(rf.floor);
  if (!rf.satisfying.empty()) {
    if (auto r = parse_npm_range(rf.satisfying); r && !r->is_empty()) w.range = *r;
  }
  w.text = !rf.satisfying.empty() ? rf.satisfying : w.floor ? ">=" + w.floor->str() : "any";
  return w;
}

// What a project bootstrap installs: the version when one is wanted exactly;
// for a range with a ceiling that npm installs (`yarn@{version}`: a yarn 1
// lockfile wants >=1.0.0 <2.0.0), the range itself, so npm takes its newest
// release, not the floor's 1.0.0; else the floor, or "latest".
std::string bootstrap_version(const ToolInfo& info, const Want& w) {
  const bool exact = w.range && w.range->any_of.size() == 1 && w.range->str().starts_with("=");
  const bool npm = std::string_view(info.bootstrap).find("npm install -g") != std::string_view::npos;
  if (!exact && npm && w.range && std::all_of(w.range->any_of.begin(), w.range->any_of.end(),
                                              [](const Interval& i) { return i.hi.has_value(); }))
    return "\"" + w.text + "\"";
  return w.floor ? w.floor->str() : "latest";
}

std::string replace_all(std::string s, std::string_view from, const std::string& to) {
  for (auto at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size())) s.replace(at, from.size(), to);
  return s;
}

// The names release tarballs use for an architecture.
std::string joined(const std::set<std::string>& s) { return str::join({s.begin(), s.end()}, ", "); }

class Router {
 public:
  explicit Router(const RouteInput& in) : in_(in), c_(in.contract), base_(in.base), archive_(in.archive) {}

  Plan run() {
    plan_.contract_digest = contract_digest(c_);
    plan_.root = c_.root;
    plan_.base = in_.base_ref;
    plan_.base_digest = base_.manifest_digest;
    plan_.platform = base_.platform.str();
    plan_.toolchain_layer = in_.toolchain_layer;
    plan_.include_run = in_.include_run || std::find(c_.include.begin(), c_.include.end(),
                                                     purpose_name(Purpose::kRun)) != c_.include.end();
    for (const auto& [tool, rf] : c_.runtime_floors)
      for (const auto& conflict : rf.conflicts) plan_.warnings.push_back(tool + ": " + conflict);
    // A version file of the image that gave no version (too large, malformed)
    // is said, so a runtime routed to the overlay for want of it is explained.
    for (const auto& note : base_.notes) plan_.warnings.push_back(in_.base_ref + ": " + note);
    decide_downloads();
    for (const auto& [tool, rf] : c_.runtime_floors) runtime(tool, rf);
    if (compile_) toolchain();
    libs(Kind::kBuildLib, build_libs_);
    libs(Kind::kRunLib, run_libs_);
    commands();
    egress();
    std::stable_sort(plan_.rows.begin(), plan_.rows.end(), [](const Row& a, const Row& b) {
      return std::make_tuple(static_cast<int>(a.kind), a.name) < std::make_tuple(static_cast<int>(b.kind), b.name);
    });
    // The overlay is what the rows provisioned put there, and nothing else.
    std::set<std::string> overlay;
    for (const auto& r : plan_.rows)
      if (r.needed && r.layer == Layer::kOverlay) overlay.insert(r.packages.begin(), r.packages.end());
    plan_.overlay_packages.assign(overlay.begin(), overlay.end());
    return std::move(plan_);
  }

 private:
  // --- download or compile ------------------------------------------------
  void decide_downloads() {
    for (const auto& l : c_.build_libs) {
      build_libs_[l.package].insert(l.required_by.begin(), l.required_by.end());
      if (l.purpose == Purpose::kRun) run_only_[Kind::kBuildLib].insert(l.package);
    }
    for (const auto& l : c_.run_libs) {
      run_libs_[l.package].insert(l.required_by.begin(), l.required_by.end());
      if (l.purpose == Purpose::kRun) run_only_[Kind::kRunLib].insert(l.package);
    }
    // A package either list needs for building is a build need in both.
    for (const auto& l : c_.build_libs)
      if (l.purpose == Purpose::kBuild) run_only_[Kind::kRunLib].erase(l.package);
    for (const auto& l : c_.run_libs)
      if (l.purpose == Purpose::kBuild) run_only_[Kind::kBuildLib].erase(l.package);
    for (const auto& rc : c_.required_commands) commands_[rc.name].insert(rc.reasons.begin(), rc.reasons.end());
    compile_ = c_.native_build_required;
    for (const auto& n : c_.native_packages) {
      if (n.build == BuildKind::kCompile) compilers_.insert(n.ecosystem + ":" + n.name);
      if (n.build != BuildKind::kDownload || n.fallback != "compile" || !n.fallback_needs) continue;
      const std::string by = n.ecosystem + ":" + n.name;
      std::set<std::string> undeclared;
      for (const auto& h : n.download_hosts)
        if (!declared(h)) undeclared.insert(h);
      if (!n.download_hosts.empty() && undeclared.empty()) {
        plan_.decisions.push_back({by, "download", "its download hosts (" + str::join(n.download_hosts, ", ") +
                                                      ") are declared in .mac/project.yaml: the prebuilt is used, "
                                                      "nothing is compiled"});
        continue;
      }
      const CompileNeeds& need = *n.fallback_needs;
      plan_.decisions.push_back(
          {by, "compile",
           (n.download_hosts.empty() ? std::string("no download host is known")
                                     : joined(undeclared) + " not declared in .mac/project.yaml") +
               ": the install falls back to compiling, so its toolchain and build libraries (" +
               str::join(need.build_libs, ", ") + ") go to the overlay"});
      compiled_downloads_.insert(by);
      compile_with(by, need);
    }
    for (const auto& n : c_.native_packages)
      if (n.ecosystem == "php-ext" && n.fallback == "compile" && n.fallback_needs) php_extension(n);
  }

  void compile_with(const std::string& by, const CompileNeeds& need) {
    compile_ = true;
    compilers_.insert(by);
    for (const auto& d : need.build_libs) {
      build_libs_[d].insert(by);
      run_only_[Kind::kBuildLib].erase(d);
    }
    for (const auto& d : need.run_libs) {
      run_libs_[d].insert(by);
      run_only_[Kind::kRunLib].erase(d);
    }
    for (const auto& cmd : need.commands) commands_[cmd].insert(by + " compiles");
    for (const auto& h : need.egress) extra_hosts_[h].insert(by + " compiles");
  }

  // A PHP extension a Dockerfile compiles into the php image's PHP, which
  // Debian's PHP has as a package (or built in). The extension follows the
  // PHP the sandbox runs: a base with a PHP of its own (the php image: ENV
  // PHP_VERSION, /usr/local/bin/php, no dpkg php) gets it compiled — Debian's
  // php8.2-* packages would install a second PHP beside it; any other base
  // gets Debian's PHP and its packages, as the contract lists them.
  void php_extension(const NativePackage& n) {
    const std::string by = n.ecosystem + ":" + n.name;
    const image::RuntimeFact* own = nullptr;
    for (const image::RuntimeFact* f : base_.runtime("php")) {
      if (f->kind == "dpkg") {
        plan_.decisions.push_back({by, "package", "the base's PHP is Debian's (" + f->source +
                                                      "): its extension packages serve, nothing is compiled"});
        return;
      }
      if (!own) own = f;
    }
    if (!own) {
      plan_.decisions.push_back({by, "package", "the base has no PHP: Debian's PHP and its extension packages go "
                                                "to the overlay, nothing is compiled"});
      return;
    }
    // The extension's Debian packages are not needed for it any more.
    const std::string ext = "php:ext-" + n.name;
    for (auto* libs : {&build_libs_, &run_libs_})
      for (auto it = libs->begin(); it != libs->end();)
        if (it->second.erase(ext) && it->second.empty())
          it = libs->erase(it);
        else
          ++it;
    const CompileNeeds& need = *n.fallback_needs;
    plan_.decisions.push_back({by, "compile", "the base's PHP is its own (" + own->source +
                                                  "), not Debian's: the extension is compiled for it with its "
                                                  "toolchain and build libraries (" +
                                                  str::join(need.build_libs, ", ") + ")"});
    compile_with(by, need);
  }

  bool declared(const std::string& host) const {
    return std::any_of(c_.egress_hosts.begin(), c_.egress_hosts.end(),
                       [&](const EgressHost& h) { return h.host == host && h.origin == EgressOrigin::kDeclared; });
  }

  // --- runtimes -------------------------------------------------------------
  void runtime(const std::string& tool, const RuntimeFloor& rf) {
    Want w = want_of(rf);
    Row row{.kind = Kind::kRuntime, .name = tool, .need = w.text};
    for (const auto& k : rf.constraints) row.required_by.push_back(k.source.file + " " + k.source.field);
    const ToolInfo* info = tool_info(tool);
    const image::RuntimeFact* stale = nullptr;
    std::string provided;  // the version the image will have, for the sub-projects' checks
    for (const image::RuntimeFact* f : base_.runtime(tool)) {
      if (w.admits(f->version)) {
        row.layer = Layer::kBase;
        row.why = f->source;
        provided = f->version;
        if (tool == "php" && f->kind == "dpkg") follow_php_line(provided);
        // A toolchain layer in the image carries the runtime's own pieces
        // (headers, venv, pip, npm) as the task toolchain it came from did.
        if (f->source.find(kToolchainRoot) != std::string::npos) layered_[tool] = tool + " " + f->version;
        break;
      }
      if (!stale) stale = f;
    }
    if (row.layer != Layer::kBase) {
      if (auto wrapped = wrapper_of(tool, rf)) {
        row.layer = Layer::kProjectBootstrap;
        row.why = *wrapped;
      } else if (info && !info->bootstrap.empty()) {
        row.layer = Layer::kProjectBootstrap;
        row.why = replace_all(std::string(info->bootstrap), "{version}", bootstrap_version(*info, w));
      } else if (auto pkg = archive_runtime(tool, rf, w, info)) {
        row.layer = Layer::kOverlay;
        row.packages = {pkg->package};
        row.why = "archive candidate " + pkg->package + " " + pkg->version + " satisfies " + w.text;
        if (pkg->meant && rf.provision != w.text)
          row.why += std::string(pkg->line ? ", on the line of" : ",") + " the version the repository means (" +
                     rf.provision_reason + ")";
        provided = pkg->version;
        if (tool == "php") follow_php_line(provided);
      } else if (info && !info->url.empty() && !w.floor) {
        // A release download needs a release number; "any" names none.
        row.layer = Layer::kUnrouted;
        row.why = "no " + tool + " version is declared and " + archive_note(tool, info) +
                  ": declare one (" + version_hint(tool) + ") to install a task toolchain";
      } else if (info && !info->url.empty()) {
        row.layer = Layer::kTaskToolchain;
        ToolchainSource src = source_of(tool);
        // What is installed is the version the repository means (its pin,
        // else the newest it tests, within its support), else the floor.
        std::optional<Version> from = w.floor;
        std::string range = rf.satisfying;
        if (auto p = parse_npm_range(rf.provision); !rf.provision.empty() && p && p->floor()) {
          from = p->floor();
          range = rf.provision;
        }
        TaskToolchain t{tool, from ? from->str() : "latest", range, src.url, {}, src.base};
        t.url = replace_all(replace_all(replace_all(t.url, "{version}", t.version), "{arch}",
                                        layer::toolchain::download_arch(tool, base_.platform.architecture)),
                            "{major}", from ? std::to_string(from->major) : "latest");
        for (const auto& h : src.hosts) {
          t.hosts.push_back(h);
          // A toolchain layer is downloaded by strata when it provisions,
          // not by the task: its hosts are the task's only when the task
          // installs the runtime itself (--no-toolchain-layer).
          if (!in_.toolchain_layer) extra_hosts_[h].insert("task toolchain " + tool + " " + t.version);
        }
        // The release is the newest of the floor's line the source lists
        // (provision resolves it: contract/provision/toolchain_stack.hpp).
        std::string line = from ? layer::toolchain::line_of(tool, from->str()) + ".x" : "latest";
        row.why = "the newest " + tool + " " + line + " release at or above " + t.version + " from " + src.base +
                  ", as a toolchain layer (" + archive_note(tool, info) + ")" +
                  (rf.provision.empty() ? std::string() : "; " + rf.provision_reason);
        toolchains_[tool] = tool + " " + t.version;
        provided = t.version;
        row.toolchain = std::move(t);
        // What the toolchain's programs load from the system: rows of their own.
        for (std::string_view lib : info->libs) {
          run_libs_[std::string(lib)].insert("toolchain:" + tool);
          run_only_[Kind::kRunLib].erase(std::string(lib));
        }
      } else {
        row.layer = Layer::kUnrouted;
        row.why = "neither the base, the archive (" + archive_note(tool, info) + ") nor a task toolchain provides " +
                  tool + " " + w.text;
        if (auto pending = pending_toolchain(tool); !pending.empty()) row.why += ": " + std::string(pending);
      }
      if (stale) row.shadow = shadow(tool, *stale, w, info);
    }
    if (!provided.empty()) scoped(tool, rf, provided, row.layer);
    routed_runtimes_[tool] = row.layer;
    plan_.rows.push_back(std::move(row));
  }

  // A sub-project whose own support the version provided does not meet is
  // one warning naming it (docs/contract.md, "Runtime versions"); the root's
  // floor is not rewritten for it.
  void scoped(const std::string& tool, const RuntimeFloor& rf, const std::string& provided, Layer layer) {
    const std::string upstream = image::upstream_version(provided);  // "18.19.0+dfsg-6~deb12u2" → 18.19.0
    auto v = parse_version(upstream);
    if (!v) return;
    for (const auto& s : rf.scopes) {
      if (s.satisfying.empty()) continue;
      auto r = parse_npm_range(s.satisfying);
      if (!r || r->contains(*v)) continue;
      plan_.warnings.push_back(tool + ": " + s.scope + " supports " + s.satisfying + ", which " + tool + " " +
                               upstream + " (" + layer_name(layer) + ") is not: build it with its own " + tool +
                               ", or raise the root's floor if the sandbox must build it");
    }
  }

  // The archive package that carries `tool`: the version the repository
  // means (its provision: a pin, the newest it tests) where the archive has
  // it — an archive with several PHPs gives a Dockerfile's php:8.5 its 8.5 —,
  // else the lowest the support admits.
  struct ArchiveRuntime {
    std::string package, version;
    bool meant = false;  // the provision's, not only the support's
    bool line = false;   // of the provision's line only (an exact release the archive lacks)
  };
  std::optional<ArchiveRuntime> archive_runtime(const std::string& tool, const RuntimeFloor& rf, const Want& w,
                                                const ToolInfo* info) const {
    if (auto p = parse_npm_range(rf.provision); !rf.provision.empty() && p && !p->is_empty() && p->floor()) {
      Want meant{*p, p->floor(), rf.provision};
      if (auto found = archive_candidate(tool, meant, info)) return ArchiveRuntime{found->first, found->second, true};
      // An exact release the archive lacks (php:8.4.3): its line's, within the support.
      const Version f = *p->floor();
      auto line = parse_npm_range(">=" + std::to_string(f.major) + "." + std::to_string(f.minor) + ".0 <" +
                                  std::to_string(f.major) + "." + std::to_string(f.minor + 1) + ".0");
      if (line) {
        Range r = w.range ? intersect(*line, *w.range) : *line;
        if (!r.is_empty() && r.floor())
          if (auto found = archive_candidate(tool, Want{r, r.floor(), r.str()}, info))
            return ArchiveRuntime{found->first, found->second, true, true};
      }
    }
    if (auto found = archive_candidate(tool, w, info)) return ArchiveRuntime{found->first, found->second, false};
    return std::nullopt;
  }

  // Extension packages are built for one PHP line: on the sandbox's Debian-
  // packaged PHP (the archive's, or the base's dpkg one), the contract's
  // php8.5-intl is that line's php8.4-intl. Only packages every need of which
  // is PHP's own ("php:ext-intl") are renamed.
  void follow_php_line(const std::string& provided) {
    auto v = parse_version(image::upstream_version(provided));
    if (!v) return;
    const std::string line = std::to_string(v->major) + "." + std::to_string(v->minor);
    for (auto* libs : {&build_libs_, &run_libs_}) {
      const Kind kind = libs == &build_libs_ ? Kind::kBuildLib : Kind::kRunLib;
      for (const auto& [pkg, by] : std::map<std::string, std::set<std::string>>(*libs)) {
        // php8.5-intl, or a version-less php-redis (the archive's default PHP's).
        const auto dash = pkg.find('-');
        const bool versioned = dash != std::string::npos && dash >= 6 && std::isdigit(static_cast<unsigned char>(pkg[3]));
        if (!pkg.starts_with("php") || dash == std::string::npos || (!versioned && dash != 3) ||
            (versioned && pkg.compare(3, dash - 3, line) == 0) ||
            !std::all_of(by.begin(), by.end(), [](const std::string& b) { return b.starts_with("php:"); }))
          continue;
        const std::string renamed = "php" + line + pkg.substr(dash);
        plan_.decisions.push_back({"deb:" + pkg, "package",
                                   pkg + " is installed as " + renamed + ", the extension for the sandbox's PHP " +
                                       line});
        // Run-only only if both were: a build need stays one.
        auto& only = run_only_[kind];
        const bool was_only = only.erase(pkg) > 0;
        if (was_only && (!libs->count(renamed) || only.count(renamed))) only.insert(renamed);
        else only.erase(renamed);
        (*libs)[renamed].insert(by.begin(), by.end());
        libs->erase(pkg);
      }
    }
  }

  // The archive package that carries `tool` within `w`: the table's
  // packages first (python3.{minor} is the floor's minor), then any other
  // versioned package of the tool, lowest admitted version first.
  std::optional<std::pair<std::string, std::string>> archive_candidate(const std::string& tool, const Want& w,
                                                                       const ToolInfo* info) const {
    std::vector<std::string> names;
    if (info)
      for (auto d : info->debian) {
        std::string pattern = replace_all(std::string(d), "{minor}", w.floor ? std::to_string(w.floor->minor) : "x");
        auto at = pattern.find("{major}");
        if (at == std::string::npos) {
          names.push_back(pattern);
        } else {
          // The floor's release first, then every release of the pattern the
          // archive has (a JDK 21 serves >=11): openjdk-21-jdk-headless before
          // the generic openjdk-* names below, so a headless JDK is preferred.
          if (w.floor) names.push_back(replace_all(pattern, "{major}", std::to_string(w.floor->major)));
          const std::string prefix = pattern.substr(0, at), suffix = pattern.substr(at + 7);
          for (auto& n : archive_.with_prefix(prefix))
            if (n.ends_with(suffix)) names.push_back(n);
        }
      }
    for (std::string_view prefix : {"python3.", "golang-1.", "openjdk-", "php"})
      for (auto& n : archive_.with_prefix(prefix))
        if (image::runtime_of_package(n) == tool) names.push_back(n);
    for (const auto& n : names) {
      const std::string* v = archive_.version(n);
      if (v && image::runtime_of_package(n) == tool && w.admits(image::upstream_version(*v))) return {{n, *v}};
    }
    return std::nullopt;
  }

  // The source the request names for `tool`, else its official one.
  ToolchainSource source_of(const std::string& tool) {
    if (auto it = in_.toolchain_sources.find(tool); it != in_.toolchain_sources.end()) {
      auto s = toolchain_source(tool, it->second);
      if (s) return std::move(*s);
      plan_.warnings.push_back("toolchain source " + tool + "=" + it->second + ": " + s.error().message() +
                               "; the official source is used");
    }
    return *official_toolchain_source(tool);
  }

  // A row for an archive package or a command that is a piece of a runtime
  // routed to a task toolchain: the toolchain carries it.
  bool carried_by_toolchain(Row& row, const std::optional<std::string>& tool) {
    if (!tool) return false;
    if (auto layered = layered_.find(*tool); layered != layered_.end()) {
      row.layer = Layer::kBase;
      row.why = "comes with the image's toolchain layer " + layered->second;
      return true;
    }
    auto it = toolchains_.find(*tool);
    if (it == toolchains_.end()) return false;
    row.layer = Layer::kTaskToolchain;
    row.why = "comes with the task toolchain " + it->second + " (not Debian's: another " + *tool + " version)";
    return true;
  }

  static std::string version_hint(const std::string& tool) {
    if (tool == "node") return "engines.node in package.json, or .nvmrc";
    if (tool == "python") return "requires-python in pyproject.toml, or .python-version";
    if (tool == "go") return "the go line of go.mod";
    if (tool == "rust") return "rust-version in Cargo.toml, or rust-toolchain.toml";
    if (tool == "ruby") return "the Gemfile's ruby directive, or .ruby-version";
    if (tool == "php") return "require.php in composer.json";
    if (tool == "java") return "the Gradle or Maven toolchain's Java version, or .java-version";
    if (tool == "dotnet") return "sdk.version in global.json";
    return ".tool-versions";
  }

  // A build tool the project's wrapper downloads (mvnw, gradlew: the
  // version its distributionUrl names), so neither the base nor the archive
  // has to carry it.
  static std::optional<std::string> wrapper_of(const std::string& tool, const RuntimeFloor& rf) {
    for (const auto& k : rf.constraints)
      if (k.source.file.ends_with("-wrapper.properties") && k.source.field == "distributionUrl")
        return "the project's wrapper downloads " + tool + (k.floor.empty() ? std::string() : " " + k.floor) +
               " on first use (" + k.source.file + ")";
    return std::nullopt;
  }

  std::string archive_note(const std::string& tool, const ToolInfo* info) const {
    if (!info || info->debian.empty()) return "no Debian package of " + tool;
    std::string first = replace_all(std::string(info->debian.back()), "{minor}", "x");
    if (auto at = first.find("{major}"); at != std::string::npos) {  // openjdk-{major}-jdk-headless: the ones there are
      const std::string prefix = first.substr(0, at), suffix = first.substr(at + 7);
      std::vector<std::string> have;
      for (auto& n : archive_.with_prefix(prefix))
        if (n.ends_with(suffix) && have.size() < 3) have.push_back(n + " " + *archive_.version(n));
      return have.empty() ? "the archive has no " + replace_all(first, "{major}", "N") : "the archive has " + str::join(have, ", ");
    }
    const std::string* v = archive_.version(first);
    return v ? "the archive has " + first + " " + *v : "the archive has no " + first;
  }

  std::string shadow(const std::string& tool, const image::RuntimeFact& stale, const Want& w,
                     const ToolInfo* info) const {
    // "below" only when it is: a 3.11 against ">=3.10.0 <3.11.0" is above it.
    auto v = parse_version(stale.version);
    const bool below = v && w.floor && *v < *w.floor;
    std::string s = "the image has " + tool + " " + stale.version + " (" + stale.source + "), " +
                    (below ? "below " : "outside ") + w.text;
    const std::string* on_path = info && !info->command.empty() ? base_.command(info->command) : nullptr;
    if (on_path)
      s += ", on PATH at " + *on_path + ": it shadows what this row installs (a login shell that resets PATH runs it)";
    return s;
  }

  // --- the C toolchain ------------------------------------------------------
  void toolchain() {
    Row row{.kind = Kind::kToolchain, .name = "native build", .need = str::join(toolchain_commands(), " ")};
    row.commands = toolchain_commands();
    row.required_by.assign(compilers_.begin(), compilers_.end());
    std::vector<std::string> found, missing;
    for (const auto& cmd : toolchain_commands()) {
      if (const std::string* p = base_.command(cmd)) found.push_back(cmd + " at " + *p);
      else missing.push_back(cmd);
    }
    if (missing.empty()) {
      row.layer = Layer::kBase;
      row.why = str::join(found, ", ");
    } else if (const std::string* v = archive_.version("build-essential")) {
      row.layer = Layer::kOverlay;
      row.packages = {"build-essential"};
      row.why = "no " + str::join(missing, ", no ") + " in the base; archive candidate build-essential " + *v;
    } else {
      std::vector<std::string> pkgs;
      for (const auto& cmd : missing) {
        std::string p = archive_.satisfier(command_package(cmd));
        if (p.empty()) {
          pkgs.clear();
          break;
        }
        if (std::find(pkgs.begin(), pkgs.end(), p) == pkgs.end()) pkgs.push_back(p);
      }
      if (pkgs.empty()) {
        row.layer = Layer::kUnrouted;
        row.why = "no " + str::join(missing, ", no ") + " in the base, and the archive has no build-essential";
      } else {
        row.layer = Layer::kOverlay;
        row.packages = pkgs;
        row.why = "no " + str::join(missing, ", no ") + " in the base; the archive has " + str::join(pkgs, ", ");
      }
    }
    plan_.rows.push_back(std::move(row));
  }

  // --- libraries and commands -----------------------------------------------
  // Routes a Debian package requirement: base when installed, else the
  // archive's package that satisfies it.
  void package_row(Row& row, const std::string& package) {
    if (const std::string* v = base_.package_version(package)) {
      row.layer = Layer::kBase;
      row.why = "dpkg " + package + " " + *v;
      return;
    }
    // An installed package that provides it satisfies it, as dpkg counts a
    // dependency (git provides git-core).
    if (const std::string* by = base_.installed_satisfier(package)) {
      row.layer = Layer::kBase;
      row.why = "dpkg " + *by + " " + *base_.package_version(*by) + " provides " + package;
      return;
    }
    std::string sat = archive_.satisfier(package);
    if (sat.empty()) {
      row.layer = Layer::kUnrouted;
      row.why = package + " is neither installed in the base nor in the archive";
      return;
    }
    row.layer = Layer::kOverlay;
    row.packages = {sat};
    row.why = sat == package ? "archive candidate " + sat + " " + *archive_.version(sat)
                             : "archive package " + sat + " provides " + package;
  }

  void libs(Kind kind, const std::map<std::string, std::set<std::string>>& libs) {
    for (const auto& [pkg, by] : libs) {
      if (compile_ && is_toolchain_package(pkg)) continue;  // the toolchain row
      Row row{.kind = kind, .name = pkg, .need = "installed"};
      row.required_by.assign(by.begin(), by.end());
      if (run_only_[kind].contains(pkg)) row.purpose = Purpose::kRun;
      if (base_.installed_satisfier(pkg) || !carried_by_toolchain(row, package_of_runtime(pkg))) package_row(row, pkg);
      leave_out_run(row);
      plan_.rows.push_back(std::move(row));
    }
  }

  // A row only the production image needs, when run needs are not
  // included: where it would go stays on the row, the overlay does not get
  // it, and why says so (docs/contract.md, "Needs").
  void leave_out_run(Row& row) const {
    if (row.purpose != Purpose::kRun || plan_.include_run || row.layer == Layer::kBase) return;
    row.needed = false;
    row.why += std::string(" — left out: only the production image needs it (its Dockerfile's final stage); "
                           "--include run ") + (row.kind == Kind::kEgress ? "allows" : "provisions") + " it";
  }

  void commands() {
    for (const auto& [cmd, why] : commands_) {
      if (compile_ && is_toolchain_command(cmd)) continue;  // the toolchain row checks them
      Row row{.kind = Kind::kCommand, .name = cmd, .need = "on PATH"};
      row.required_by.assign(why.begin(), why.end());
      if (const std::string* p = base_.command(cmd)) {
        row.layer = Layer::kBase;
        row.why = *p;
      } else if (carried_by_toolchain(row, command_of_runtime(cmd))) {
        // python3, pip, npm, npx: on PATH from the task toolchain
      } else if (auto tool = runtime_of_command(cmd); tool && routed_runtimes_.contains(*tool) &&
                                                      routed_runtimes_[*tool] != Layer::kOverlay &&
                                                      routed_runtimes_[*tool] != Layer::kUnrouted) {
        row.layer = routed_runtimes_[*tool];
        row.why = "comes with " + *tool + " (" + layer_name(row.layer) + ")";
      } else {
        package_row(row, command_package(cmd));
      }
      plan_.rows.push_back(std::move(row));
    }
  }

  std::optional<std::string> runtime_of_command(const std::string& cmd) const {
    for (const auto& [tool, layer] : routed_runtimes_) {
      const ToolInfo* info = tool_info(tool);
      if (info && info->command == cmd) return tool;
    }
    return std::nullopt;
  }

  // --- egress ---------------------------------------------------------------
  void egress() {
    std::set<std::string> seen;
    for (const auto& h : c_.egress_hosts) {
      Row row{.kind = Kind::kEgress, .name = h.host, .need = h.access, .layer = Layer::kEgress};
      row.why = std::string(egress_origin_name(h.origin)) + ": " + h.reason;
      for (const auto& e : h.evidence) row.required_by.push_back(e.file + (e.field.empty() ? "" : " " + e.field));
      // A host only a download reaches, for packages that compile instead.
      bool only_skipped = h.origin == EgressOrigin::kInstallTime && !h.evidence.empty() &&
                          std::all_of(h.evidence.begin(), h.evidence.end(),
                                      [&](const Evidence& e) { return compiled_downloads_.contains(e.field); });
      if (only_skipped && !extra_hosts_.contains(h.host)) {
        row.needed = false;
        row.why += " — not needed: the package compiles instead";
      }
      headers_local(row);
      if (auto it = extra_hosts_.find(h.host); it != extra_hosts_.end())
        row.required_by.insert(row.required_by.end(), it->second.begin(), it->second.end());
      else if (h.purpose == Purpose::kRun && row.needed) {
        row.purpose = Purpose::kRun;
        leave_out_run(row);
      }
      seen.insert(h.host);
      plan_.rows.push_back(std::move(row));
    }
    for (const auto& [host, why] : extra_hosts_) {
      if (seen.contains(host)) continue;
      Row row{.kind = Kind::kEgress, .name = host, .need = "read-only", .layer = Layer::kEgress};
      row.why = "inferred: " + *why.begin();
      row.required_by.assign(why.begin(), why.end());
      headers_local(row);
      plan_.rows.push_back(std::move(row));
    }
  }

  // nodejs.org for node-gyp's headers, when they are in the image.
  void headers_local(Row& row) const {
    if (row.name != kNodeHeadersHost || !row.needed || !node_headers_local()) return;
    row.needed = false;
    row.why += " — not needed: " + node_headers_note();
  }

  // node-gyp reads the Node headers from npm_config_nodedir instead of
  // downloading them: a toolchain layer sets it (and carries include/node),
  // and so may a base.
  static constexpr std::string_view kNodeHeadersHost = "nodejs.org";
  bool node_headers_local() const {
    auto routed = routed_runtimes_.find("node");
    if (routed != routed_runtimes_.end() && routed->second == Layer::kTaskToolchain && in_.toolchain_layer) return true;
    return std::any_of(base_.env.begin(), base_.env.end(),
                       [](const std::string& e) { return e.starts_with("npm_config_nodedir="); });
  }
  std::string node_headers_note() const {
    auto routed = routed_runtimes_.find("node");
    if (routed != routed_runtimes_.end() && routed->second == Layer::kTaskToolchain)
      return "node's toolchain layer carries the headers (npm_config_nodedir)";
    return "the image's npm_config_nodedir has the headers";
  }

  const RouteInput& in_;
  const Contract& c_;
  const image::ImageFacts& base_;
  const Candidates& archive_;
  Plan plan_;
  std::map<std::string, std::set<std::string>> build_libs_, run_libs_, commands_, extra_hosts_;
  std::set<std::string> compilers_, compiled_downloads_;
  std::map<Kind, std::set<std::string>> run_only_;  // libraries only the production image needs
  std::map<std::string, Layer> routed_runtimes_;
  std::map<std::string, std::string> toolchains_;  // tool → "python 3.10.0": runtimes routed to a task toolchain
  std::map<std::string, std::string> layered_;     // tool → "python 3.10.15": a toolchain layer in the image has it
  static constexpr std::string_view kToolchainRoot = "/opt/strata/toolchains/";
  bool compile_ = false;
};

}  // namespace

Plan route(const RouteInput& in) { return Router(in).run(); }

}  // namespace strata::contract::route
