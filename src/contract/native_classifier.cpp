#include "contract/native_classifier.hpp"

#include <algorithm>

namespace strata::contract {
namespace {

const std::string kKbFile = "knowledge-base:native_packages.yaml";

std::string toolchain_key(const std::string& eco) {
  if (eco == "go") return "go:cgo";
  return eco + ":compile";
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
    return out;
  }

 private:
  std::optional<NativePackage> classify(const PackageSignals& s) {
    NativePackage n;
    n.ecosystem = s.ecosystem;
    n.name = s.name;
    std::optional<Version> version = s.locked ? s.locked : s.declared;
    if (version) n.version = version->str();
    n.evidence = s.evidence;

    if (const KbRule* rule = kb_.match(s.ecosystem, s.name, version)) {
      n.build = rule->build;
      n.fallback = rule->fallback;
      n.certainty = Certainty::kKnown;
      n.reason = rule->note.empty() ? "knowledge base" : rule->note;
      n.evidence.push_back({kKbFile, s.ecosystem + "/" + s.name, rule->when_text.empty() ? "any version" : rule->when_text});
      if (!version) n.reason += " (version unknown; first rule applied)";
      rule_ = rule;
    } else if (s.structural) {
      n.build = *s.structural;
      n.certainty = Certainty::kInferred;
      n.reason = s.structural_reason;
    } else if (s.ecosystem == "npm" && !s.install_script_text.empty()) {
      if (const KbScriptPattern* p = kb_.install_script(s.install_script_text)) {
        n.build = p->build;
        n.fallback = p->fallback;
        n.certainty = Certainty::kInferred;
        n.reason = p->reason;
        pattern_ = p;
      } else {
        n.build = BuildKind::kCompile;
        n.certainty = Certainty::kAssumed;
        n.reason = "install script of unknown effect; assumed to build";
      }
    } else if (s.ecosystem == "npm" && s.binding_gyp) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kInferred;
      n.reason = "binding.gyp and no install script: npm runs node-gyp rebuild implicitly";
    } else if (s.ecosystem == "npm" && s.install_script) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kAssumed;
      n.reason = "lockfile says it has an install script; script not visible, assumed to build";
    } else if (s.ecosystem == "npm" && s.build_allowed) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kAssumed;
      n.reason = "allowed to run build scripts (allowlist); assumed to build";
    } else if (s.ecosystem == "pypi" && s.sdist_only) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kInferred;
      n.reason = "only a source distribution is locked: pip builds it";
    } else if (s.ecosystem == "crates" && s.name.ends_with("-sys")) {
      n.build = BuildKind::kCompile;
      n.certainty = Certainty::kInferred;
      n.reason = "a -sys crate builds or links a native library";
    } else {
      return std::nullopt;
    }

    if (s.ecosystem == "npm" && s.build_denied && n.build != BuildKind::kPrebuilt && n.build != BuildKind::kNone) {
      ctx_.warn(s.evidence.empty() ? "package.json" : s.evidence.back().file,
                s.name + " needs its build script (" + build_kind_name(n.build) +
                    ") but the package manager is told not to run it; it will fail at runtime");
    }
    bool scripts_needed = n.build == BuildKind::kCompile || n.build == BuildKind::kDownload;
    if (s.ecosystem == "npm" && scripts_needed && !s.build_allowed && ctx_.pnpm_version &&
        ctx_.pnpm_version->major >= 10) {
      ctx_.warn("package.json", "pnpm " + ctx_.pnpm_version->str() + " skips the build script of " + s.name +
                                    " unless it is listed in onlyBuiltDependencies or allowBuilds");
    }
    return n;
  }

  // What compiling `s` needs, from the toolchain of its ecosystem, the
  // package's own table entry, the structural signals and the install-script
  // pattern that matched.
  CompileNeeds compile_needs(const PackageSignals& s, const KbPackage* pkg, const KbScriptPattern* pattern) const {
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
    if (pkg) {
      add(need.build_libs, pkg->build_deps);
      add(need.run_libs, pkg->run_deps_when_compiled);
    }
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
    const KbPackage* pkg = kb_.package(s.ecosystem, s.name);
    const KbRule* rule = std::exchange(rule_, nullptr);
    const KbScriptPattern* pattern = std::exchange(pattern_, nullptr);
    if (n.build == BuildKind::kCompile) {
      CompileNeeds need = compile_needs(s, pkg, pattern);
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
      n.fallback_needs = compile_needs(s, pkg, pattern);
    }
    if (pkg) {
      for (const auto& d : pkg->run_deps) ctx_.run_lib(d, by);
      for (const auto& h : pkg->egress)
        ctx_.egress(h, EgressOrigin::kInstallTime, by + " downloads at install time",
                    Evidence{kKbFile, s.ecosystem + "/" + s.name + ".egress", h});
    }
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
  const KbRule* rule_ = nullptr;
  const KbScriptPattern* pattern_ = nullptr;
};

}  // namespace

std::vector<NativePackage> classify_native(ScanContext& ctx) { return Classifier(ctx).run(); }

}  // namespace strata::contract
