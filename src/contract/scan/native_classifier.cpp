#include "contract/scan/native_classifier.hpp"

#include <algorithm>

#include "oci/tar_entry.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

const std::string kKbFile = "knowledge-base:native_packages.yaml";

std::string toolchain_key(const std::string& eco) {
  if (eco == "go") return "go:cgo";
  return eco + ":compile";
}

// "@s/n" → ("s", "n"); "n" → ("", "n").
std::pair<std::string, std::string> split_scope(std::string_view name) {
  if (!name.starts_with('@')) return {"", std::string(name)};
  auto slash = name.find('/');
  if (slash == std::string_view::npos) return {std::string(name.substr(1)), ""};
  return {std::string(name.substr(1, slash - 1)), std::string(name.substr(slash + 1))};
}

// A build signal of unknown effect: the lockfile or an allowlist says the
// package runs a script, nothing says what it does.
bool build_signal(const PackageSignals& s) {
  return s.install_script || s.build_allowed || s.binding_gyp || !s.install_script_text.empty();
}

class Classifier {
 public:
  explicit Classifier(ScanContext& ctx) : ctx_(ctx), kb_(ctx.kb()) {}

  std::vector<NativePackage> run() {
    std::vector<NativePackage> out;
    for (const auto& [key, s] : ctx_.packages()) {
      auto n = classify(s);
      if (!n) continue;
      implications(s, *n);
      out.push_back(std::move(*n));
    }
    for (const auto& o : optional_)
      ctx_.note(".", o + " compiles only as an optional dependency: the install skips a failed build, so it adds "
                         "no toolchain and does not set native_build.required");
    if (!assumed_.empty()) {
      std::string names;
      for (std::size_t i = 0; i < assumed_.size() && i < 12; ++i) names += (i ? ", " : "") + assumed_[i].second;
      if (assumed_.size() > 12) names += ", …";
      ctx_.note(assumed_.front().first,
                std::to_string(assumed_.size()) +
                    " package(s) have build scripts of unknown effect (" + names +
                    "); listed with certainty `assumed`, not counted in native_build.required and given no "
                    "toolchain: most such scripts compile nothing. If one does, it needs the ecosystem's "
                    "compile toolchain (toolchains.yaml)");
    }
    return out;
  }

 private:
  // The platform package in a lockfile that carries `name`'s prebuilt
  // binary: "@swc/core-linux-x64-gnu" for @swc/core, "@esbuild/linux-x64"
  // for esbuild, "@img/sharp-linux-x64" for sharp.
  const std::pair<const std::string, std::string>* platform_package(const std::string& name) const {
    auto [scope, bare] = split_scope(name);
    for (const auto& entry : ctx_.npm_platform_packages) {
      const std::string& p = entry.first;
      auto at = p.find("linux");
      while (at != std::string::npos && at > 0 && p[at - 1] != '-' && p[at - 1] != '/') at = p.find("linux", at + 1);
      if (at == std::string::npos || at == 0) continue;
      std::string parent = p.substr(0, at - 1);  // "@swc/core", "@esbuild", "@img/sharp"
      auto [pscope, pbare] = split_scope(parent);
      bool match = parent == name || (parent.starts_with('@') && (pbare == name || pscope == name)) ||
                   (!scope.empty() && pscope == scope);
      if (match) return &entry;
    }
    return nullptr;
  }

  // Names only in an allowlist (onlyBuiltDependencies, allowBuilds,
  // trustedDependencies) are not installed: nothing to report.
  static bool phantom(const PackageSignals& s) {
    return s.ecosystem == "npm" && (s.build_allowed || s.build_denied) && !s.in_lock && !s.locked && !s.direct &&
           !s.install_script && !s.binding_gyp && s.install_script_text.empty() && !s.structural;
  }

  void assumed(const PackageSignals& s, NativePackage& n, std::string reason) {
    n.build = BuildKind::kCompile;
    n.certainty = Certainty::kAssumed;
    n.reason = std::move(reason);
    assumed_.emplace_back(s.evidence.empty() ? "." : s.evidence.front().file, s.ecosystem + ":" + s.name);
  }

  void feature_effects(const PackageSignals& s, const KbPackage* pkg, NativePackage& n) {
    if (!pkg) return;
    for (const auto& [feature, f] : pkg->features) {
      std::vector<std::string> spellings = f.enabled_by;
      spellings.push_back(s.name + "/" + feature);
      for (const auto& sp : spellings) {
        auto it = ctx_.crate_features.find(sp);
        if (it == ctx_.crate_features.end()) continue;
        feature_ = &f;
        n.reason += "; feature " + feature + " is on (" + sp + "): " + f.note;
        n.evidence.push_back(it->second);
        return;
      }
    }
  }

  std::optional<NativePackage> classify(const PackageSignals& s) {
    if (!s.not_applicable.empty()) {
      ctx_.note(s.evidence.empty() ? "." : s.evidence.front().file, s.ecosystem + ":" + s.name + " " + s.not_applicable);
      return std::nullopt;
    }
    if (phantom(s)) return std::nullopt;
    NativePackage n;
    n.ecosystem = s.ecosystem;
    n.name = s.name;
    std::optional<Version> version = s.locked ? s.locked : s.declared;
    if (version) n.version = version->str();
    n.evidence = s.evidence;

    const KbRule* rule = kb_.match(s.ecosystem, s.name, version);
    kb_name_ = s.name;
    if (!rule && s.ecosystem == "npm" && build_signal(s)) {
      // "@acme/sqlite3" published from sqlite3's sources: same build.
      auto [scope, bare] = split_scope(s.name);
      if (!scope.empty() && !bare.empty() && (rule = kb_.match("npm", bare, version))) kb_name_ = bare;
    }
    const KbPackage* pkg = kb_.package(s.ecosystem, kb_name_);
    const std::pair<const std::string, std::string>* platform = nullptr;

    if (rule) {
      n.build = rule->build;
      n.fallback = rule->fallback;
      n.certainty = kb_name_ == s.name ? Certainty::kKnown : Certainty::kInferred;
      n.reason = rule->note.empty() ? "knowledge base" : rule->note;
      if (kb_name_ != s.name) n.reason = "a fork of " + kb_name_ + " (same package name under another scope): " + n.reason;
      n.evidence.push_back({kKbFile, s.ecosystem + "/" + kb_name_, rule->when_text.empty() ? "any version" : rule->when_text});
      if (!version && rule->when) n.reason += " (version unknown; first rule applied)";
      rule_ = rule;
      feature_effects(s, pkg, n);
      const bool gem = s.ecosystem == "gem";
      if ((s.ecosystem == "pypi" || gem) && s.linux_wheel && n.build == BuildKind::kCompile) {
        n.build = BuildKind::kPrebuilt;
        n.fallback = "compile";
        n.certainty = Certainty::kInferred;
        n.reason = std::string(gem ? "the lock pins a platform gem for x86_64-linux" : "the lock pins a wheel for linux x86_64") +
                   ", so nothing is compiled (" + n.reason + ")";
      } else if ((s.ecosystem == "pypi" || gem) && s.sdist_only && !s.linux_wheel && n.build == BuildKind::kPrebuilt &&
                 !n.fallback.empty()) {
        n.build = BuildKind::kCompile;
        n.fallback.clear();
        n.certainty = Certainty::kInferred;
        n.reason = std::string(gem ? "the lock has no platform gem for x86_64-linux, so the source gem is built"
                                   : "the lock has no wheel for linux x86_64, so the sdist is built") +
                   " (" + n.reason + ")";
      }
    } else if (s.structural) {
      n.build = *s.structural;
      n.fallback = s.structural_fallback;
      n.certainty = Certainty::kInferred;
      n.reason = s.structural_reason;
    } else if (s.ecosystem == "npm" && (s.install_script || s.build_allowed) && (platform = platform_package(s.name))) {
      n.build = BuildKind::kPrebuilt;
      n.certainty = Certainty::kInferred;
      n.reason = "its prebuilt binary is the platform package " + platform->first +
                 " in the lock (optionalDependencies); the install script only checks or selects it";
      n.evidence.push_back({platform->second, "package " + platform->first, "linux platform package"});
    } else if (s.ecosystem == "npm" && !s.install_script_text.empty()) {
      if (const KbScriptPattern* p = kb_.install_script(s.install_script_text)) {
        n.build = p->build;
        n.fallback = p->fallback;
        n.certainty = Certainty::kInferred;
        n.reason = p->reason;
        pattern_ = p;
      } else {
        n.build = BuildKind::kNone;
        n.certainty = Certainty::kInferred;
        n.reason = "its install script is visible and runs no native build tool";
      }
    } else if (s.ecosystem == "npm" && s.binding_gyp) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kInferred;
      n.reason = "binding.gyp and no install script: npm runs node-gyp rebuild implicitly";
    } else if (s.ecosystem == "npm" && s.install_script) {
      assumed(s, n, "the lockfile says it has an install script; the script is not visible");
    } else if (s.ecosystem == "npm" && s.build_allowed) {
      assumed(s, n, "allowed to run build scripts (allowlist); what they do is not visible");
    } else if (s.ecosystem == "pypi" && s.sdist_only) {
      assumed(s, n, "only a source distribution is locked; a pure-Python sdist builds without a compiler");
    } else if (s.ecosystem == "crates" && s.name.ends_with("-sys")) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kInferred;
      n.reason = "a -sys crate builds or links a native library";
    } else {
      return std::nullopt;
    }

    // npm skips a failed build of an optional dependency: nothing is needed.
    if (s.optional_entry && !s.required_entry && !s.direct && n.build == BuildKind::kCompile &&
        n.certainty != Certainty::kAssumed) {
      n.optional = true;
      n.reason += "; only an optional dependency, so a failed build is skipped";
      optional_.push_back(s.ecosystem + ":" + s.name);
    }

    if (s.ecosystem == "go" && ctx_.cgo_setting && ctx_.cgo_setting->value == "0" && n.build == BuildKind::kCompile) {
      n.build = BuildKind::kNone;
      n.reason = "CGO_ENABLED=0: cgo is off, nothing is compiled (" + n.reason + ")";
      n.evidence.push_back(*ctx_.cgo_setting);
      if (rule)
        ctx_.warn(ctx_.cgo_setting->file, s.name + " needs cgo but " + ctx_.cgo_setting->file +
                                              " sets CGO_ENABLED=0; it builds without its C part and fails at runtime");
    } else if (s.ecosystem == "go" && ctx_.cgo_setting && n.build == BuildKind::kCompile) {
      n.evidence.push_back(*ctx_.cgo_setting);
    }

    if (s.ecosystem == "npm" && s.build_denied && n.build != BuildKind::kPrebuilt && n.build != BuildKind::kNone) {
      ctx_.warn(s.evidence.empty() ? "package.json" : s.evidence.back().file,
                s.name + " needs its build script (" + build_kind_name(n.build) +
                    ") but the package manager is told not to run it; it will fail at runtime");
    }
    bool scripts_needed = (n.build == BuildKind::kCompile || n.build == BuildKind::kDownload) &&
                          n.certainty != Certainty::kAssumed;
    if (s.ecosystem == "npm" && scripts_needed && !s.build_allowed) pnpm_skips(s);
    return n;
  }

  // pnpm >= 10 runs no dependency build script that is not allowlisted; only
  // the pnpm that governs the file naming the package counts.
  void pnpm_skips(const PackageSignals& s) {
    for (const auto& e : s.evidence) {
      std::string b(oci::base_name(e.file));
      if (b != "pnpm-lock.yaml" && b != "package.json" && b != "pnpm-workspace.yaml") continue;
      auto v = ctx_.pnpm_version_for(e.file);
      if (!v || v->major < 10) continue;
      ctx_.warn(e.file, "pnpm " + v->str() + " skips the build script of " + s.name +
                            " unless it is listed in onlyBuiltDependencies or allowBuilds");
      return;
    }
  }

  // What compiling `s` needs, from the toolchain of its ecosystem, the build
  // libraries its table entry (or the rule or feature that matched) names,
  // the structural signals and the install-script pattern that matched.
  CompileNeeds compile_needs(const PackageSignals& s, const KbPackage* pkg, const KbScriptPattern* pattern,
                             const std::vector<std::string>* build_deps) const {
    CompileNeeds need;
    auto add = [](std::vector<std::string>& to, const std::vector<std::string>& from) {
      for (const auto& x : from)
        if (std::find(to.begin(), to.end(), x) == to.end()) to.push_back(x);
    };
    if (const KbToolchain* t = kb_.toolchain(toolchain_key(s.ecosystem))) {
      add(need.build_libs, t->build_deps);
      add(need.commands, t->commands);
      for (const auto& [host, reason] : t->egress) add(need.egress, {host});
    }
    if (build_deps) add(need.build_libs, *build_deps);
    if (pkg) add(need.run_libs, pkg->run_deps_when_compiled);
    add(need.build_libs, s.build_deps);
    add(need.commands, s.commands);
    if (pattern) {
      add(need.build_libs, pattern->build_deps);
      add(need.commands, pattern->commands);
    }
    return need;
  }

  void implications(const PackageSignals& s, NativePackage& n) {
    const std::string by = s.ecosystem + ":" + s.name;
    const KbPackage* pkg = kb_.package(s.ecosystem, kb_name_);
    const KbRule* rule = std::exchange(rule_, nullptr);
    const KbScriptPattern* pattern = std::exchange(pattern_, nullptr);
    const KbFeature* feature = std::exchange(feature_, nullptr);
    const std::vector<std::string>* build_deps = feature                                ? &feature->build_deps
                                                 : rule && !rule->build_deps.empty() ? &rule->build_deps
                                                 : pkg                               ? &pkg->build_deps
                                                                                     : nullptr;
    const std::vector<std::string>* run_deps = feature ? &feature->run_deps : pkg ? &pkg->run_deps : nullptr;
    if (n.build == BuildKind::kCompile && n.certainty != Certainty::kAssumed && !n.optional) {
      CompileNeeds need = compile_needs(s, pkg, pattern, build_deps);
      for (const auto& d : need.build_libs) ctx_.build_lib(d, by);
      for (const auto& d : need.run_libs) ctx_.run_lib(d, by);
      if (const KbToolchain* t = kb_.toolchain(toolchain_key(s.ecosystem))) {
        for (const auto& c : t->commands) ctx_.command(c, by + " compiles");
        for (const auto& [host, reason] : t->egress)
          ctx_.egress(host, EgressOrigin::kInstallTime, reason,
                      Evidence{"knowledge-base:toolchains.yaml", toolchain_key(s.ecosystem), by});
      }
      for (const auto& c : s.commands) ctx_.command(c, by);
      if (pattern)
        for (const auto& c : pattern->commands) ctx_.command(c, by);
    } else if (n.fallback == "compile") {
      // Not in build_libs: whether the image needs them depends on whether
      // the download can happen, which the router decides.
      n.fallback_needs = compile_needs(s, pkg, pattern, build_deps);
    }
    if (n.build == BuildKind::kNone && s.ecosystem == "go") return;  // CGO_ENABLED=0
    if (run_deps)
      for (const auto& d : *run_deps) ctx_.run_lib(d, by);
    if (pkg)
      for (const auto& h : pkg->egress)
        ctx_.egress(h, EgressOrigin::kInstallTime,
                    by + " " + (pkg->egress_reason.empty() ? "downloads at install time" : pkg->egress_reason),
                    Evidence{kKbFile, s.ecosystem + "/" + kb_name_ + ".egress", h});
    if (n.build == BuildKind::kDownload) {
      const std::vector<std::string>* hosts = rule ? &rule->egress : pattern ? &pattern->egress : nullptr;
      if (hosts) {
        n.download_hosts = *hosts;
        for (const auto& h : *hosts)
          ctx_.egress(h, EgressOrigin::kInstallTime, by + " downloads a prebuilt binary at install time",
                      Evidence{rule ? kKbFile : "knowledge-base:toolchains.yaml", by, n.reason},
                      rule ? rule->mirror_env : "");
      }
    }
  }

  ScanContext& ctx_;
  const KnowledgeBase& kb_;
  std::string kb_name_;
  const KbRule* rule_ = nullptr;
  const KbScriptPattern* pattern_ = nullptr;
  const KbFeature* feature_ = nullptr;
  std::vector<std::pair<std::string, std::string>> assumed_;  // (file, ecosystem:name)
  std::vector<std::string> optional_;                          // optional-only compiles
};

}  // namespace

std::vector<NativePackage> classify_native(ScanContext& ctx) { return Classifier(ctx).run(); }

}  // namespace strata::contract
