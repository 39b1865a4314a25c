#include "contract/scan/rust_scanner.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "contract/scan/toml_file.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

const std::string kCratesIoGit = "registry+https://github.com/rust-lang/crates.io-index";
const std::string kCratesIoSparse = "sparse+https://index.crates.io/";

// Does a `[target.<key>.dependencies]` table apply to a linux x86_64 gnu
// image? `key` is a target triple or a cfg() expression; predicates strata
// cannot decide (features, custom cfgs) count as true so nothing applicable
// is dropped.
class CfgEval {
 public:
  explicit CfgEval(std::string_view s) : s_(s) {}

  bool applies() {
    if (!s_.starts_with("cfg(")) return s_.find("linux") != std::string_view::npos;  // a target triple
    pos_ = 4;
    bool v = expr();
    return v;
  }

 private:
  void ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  std::string ident() {
    ws();
    std::size_t b = pos_;
    while (pos_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    return std::string(s_.substr(b, pos_ - b));
  }
  bool eat(char c) {
    ws();
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  std::vector<bool> list() {
    std::vector<bool> out;
    if (!eat('(')) return out;
    while (pos_ < s_.size() && !eat(')')) {
      out.push_back(expr());
      eat(',');
    }
    return out;
  }
  bool expr() {
    std::string id = ident();
    if (id.empty()) {
      ++pos_;
      return true;
    }
    if (id == "all" || id == "any" || id == "not") {
      auto v = list();
      if (id == "not") return v.empty() || !v.front();
      if (id == "all") return std::all_of(v.begin(), v.end(), [](bool b) { return b; });
      return std::any_of(v.begin(), v.end(), [](bool b) { return b; });
    }
    if (!eat('=')) return id == "unix" || (id != "windows" && id != "wasm" && id != "miri");
    ws();
    std::string value;
    if (eat('"')) {
      std::size_t b = pos_;
      while (pos_ < s_.size() && s_[pos_] != '"') ++pos_;
      value = std::string(s_.substr(b, pos_ - b));
      ++pos_;
    }
    if (id == "target_os") return value == "linux";
    if (id == "target_family") return value == "unix";
    if (id == "target_arch") return value == "x86_64";
    if (id == "target_env") return value == "gnu";
    if (id == "target_vendor") return value == "unknown";
    if (id == "target_pointer_width") return value == "64";
    if (id == "target_endian") return value == "little";
    return true;
  }

  std::string_view s_;
  std::size_t pos_ = 0;
};

// A `[workspace.dependencies]` entry members inherit with `workspace = true`.
struct WorkspaceDep {
  std::string spec;
  std::vector<std::string> features;
  bool no_default = false;  // default-features = false
};

// `default-features = false` (or the older `default_features`) at a dependency's path.
bool no_default_features(const TomlFile& t, const std::string& path) {
  for (const char* k : {".default-features", ".default_features"})
    if (t.boolean(path + k) == false) return true;
  return false;
}

class RustScanner {
 public:
  explicit RustScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto& fs = ctx_.fs();
    auto manifests = fs.files_named("Cargo.toml");
    auto locks = fs.files_named("Cargo.lock");
    auto toolchains = fs.files_named("rust-toolchain.toml");
    auto legacy = fs.files_named("rust-toolchain");
    if (manifests.empty() && locks.empty() && toolchains.empty() && legacy.empty()) return;
    ctx_.ecosystem("rust");
    if (!manifests.empty()) {
      ctx_.needs_tool("rust", manifests, "a Rust crate");
      // rustc's linux-gnu targets link every binary, build script and
      // proc-macro with `cc`: a Rust build needs the C toolchain's linker
      // and C library even when no crate compiles C.
      ctx_.command("cc", "rustc links with cc (x86_64-unknown-linux-gnu)");
      ctx_.build_lib("build-essential", "rust:linker");
    }
    for (const auto& f : fs.files_named("config.toml"))
      if (f == ".cargo/config.toml" || f.ends_with("/.cargo/config.toml")) cargo_config(f);
    std::vector<std::pair<std::string, TomlFile>> parsed;
    for (const auto& f : manifests) {
      TomlFile t = TomlFile::read(ctx_, f);
      if (!t.ok()) continue;
      for (const auto& dep : t.keys("workspace.dependencies")) {
        std::string path = "workspace.dependencies." + dep;
        workspace_deps_[dir_of(f)][dep] = {t.version_like(path).value_or(""), t.strings(path + ".features"),
                                           no_default_features(t, path)};
      }
      parsed.emplace_back(f, std::move(t));
    }
    for (auto& [f, t] : parsed) manifest(f, t);
    if (locks.empty()) pulled_crates();
    for (const auto& f : toolchains) toolchain_toml(f);
    for (const auto& f : legacy) toolchain_legacy(f);
    for (const auto& f : locks) lock(f);
    for (const auto& [name, gated] : gated_) {
      if (applicable_.count(name)) continue;
      if (!ctx_.kb().package("crates", name) && !name.ends_with("-sys")) continue;
      PackageSignals& s = ctx_.package("crates", name);
      if (s.evidence.empty()) s.evidence.push_back(gated.second);
      s.not_applicable = "is a dependency only under [target." + gated.first + "] (Cargo.toml); it is not built for a Linux image";
    }
    if (!replaced_) {
      ctx_.egress("index.crates.io", EgressOrigin::kDefault, "crates.io sparse index");
      ctx_.egress("static.crates.io", EgressOrigin::kDefault, "crates.io crate downloads");
    }
  }

  // The nearest enclosing workspace root's entry for `dep`.
  const WorkspaceDep* inherited(const std::string& dir, const std::string& dep) const {
    std::string d = dir;
    for (;;) {
      if (auto w = workspace_deps_.find(d); w != workspace_deps_.end())
        if (auto e = w->second.find(dep); e != w->second.end()) return &e->second;
      if (d == ".") return nullptr;
      d = dir_of(d);
    }
  }

  void feature_on(const std::string& spelling, Evidence ev) {
    std::string sp = spelling;
    if (auto q = sp.find("?/"); q != std::string::npos) sp.erase(q, 1);  // "dep?/feature"
    ctx_.crate_features.try_emplace(sp, std::move(ev));
  }

  // One dependency table ("dependencies", "target.'cfg(unix)'.dependencies").
  void dependencies(const std::string& rel, const TomlFile& t, const std::string& table, bool applies,
                    const std::string& target) {
    std::string dir = dir_of(rel);
    for (const auto& dep : t.keys(table)) {
      std::string path = table + "." + dep;
      std::string name = t.string(path + ".package").value_or(dep);  // renamed dependency
      std::string spec = t.version_like(path).value_or("");
      // Cargo writes an intersection with commas (">=0.11, <0.13"); npm ranges with spaces.
      for (auto c = spec.find(','); c != std::string::npos; c = spec.find(',', c)) spec[c] = ' ';
      // A dependency from git is fetched from its host, not crates.io.
      if (auto git = t.string(path + ".git"); git && applies)
        if (std::string host = url_host(*git); !host.empty())
          ctx_.egress(host, EgressOrigin::kInstallTime, name + " is fetched from " + git->substr(0, 100),
                      Evidence{rel, path + ".git", *git});
      std::vector<std::string> features = t.strings(path + ".features");
      bool no_default = no_default_features(t, path);
      std::string shown = spec;
      if (t.has(path + ".workspace")) {
        if (const WorkspaceDep* w = inherited(dir, dep)) {
          spec = w->spec;
          features.insert(features.end(), w->features.begin(), w->features.end());
          // The workspace entry decides; a member can only turn its defaults
          // back on (Cargo ignores a member's false while the workspace keeps them).
          no_default = w->no_default && t.boolean(path + ".default-features") != true;
          shown = "workspace = true → " + (spec.empty() ? std::string("*") : spec);
        } else {
          shown = "workspace = true (no [workspace.dependencies] entry found)";
        }
      }
      for (const auto& f : features) feature_on(name + "/" + f, {rel, path + ".features", f});
      if (applies) applicable_.insert(name);
      else gated_.try_emplace(name, target, Evidence{rel, path, spec.empty() ? "*" : spec});
      if (!ctx_.kb().package("crates", name) && !name.ends_with("-sys")) continue;
      if (!applies) continue;
      PackageSignals& s = ctx_.package("crates", name);
      s.direct = true;
      Evidence ev{rel, path, shown.empty() ? "*" : shown};
      s.evidence.push_back(ev);
      std::optional<Version> declared;
      if (auto r = parse_npm_range(spec); r && !spec.empty())  // Cargo's default is a caret
        declared = r->floor();
      if (declared && (!s.declared || *declared < *s.declared)) s.declared = declared;
      Declaration d{name, declared, {}, !no_default, std::move(ev)};
      for (const auto& f : features) d.features.emplace(f, Evidence{rel, path + ".features", f});
      declarations_.push_back(std::move(d));
    }
  }

 private:
  // Without a Cargo.lock the resolved graph is unknown, but a direct
  // dependency whose knowledge-base entry lists the crates it pulls (`pulls`:
  // a Cargo feature, `default` unless default-features = false, `*` whatever
  // the features; a `when` range only for a declared version inside it)
  // still shows them: diesel with feature postgres builds pq-sys, reqwest
  // 0.12 with its default TLS builds openssl-sys. With a lock, the lock says
  // what is built and this is not used.
  //
  // Each declaration is read on its own (its version, its features, its
  // defaults): reqwest 0.11 with defaults in one crate and reqwest 0.13
  // without them in another are two packages to Cargo. A feature a crate's
  // own default features turn on (`default = ["reqwest/native-tls"]`) counts too.
  void pulled_crates() {
    std::vector<std::tuple<std::string, std::string, Evidence>> pulls;  // crate, pulled by, evidence
    for (const Declaration& d : declarations_) {
      const KbPackage* pkg = ctx_.kb().package("crates", d.name);
      if (!pkg) continue;
      for (const auto& pull : pkg->pulls) {
        if (pull.when && !(d.declared && pull.when->contains(*d.declared))) continue;
        const Evidence* on = nullptr;
        if (pull.feature == "*" || (pull.feature == "default" && d.defaults)) {
          on = &d.evidence;
        } else if (auto f = d.features.find(pull.feature); f != d.features.end()) {
          on = &f->second;
        } else if (auto g = default_features_.find(d.name + "/" + pull.feature); g != default_features_.end()) {
          on = &g->second;
        }
        if (!on) continue;
        std::string by = pull.feature == "*" ? d.name : d.name + "/" + pull.feature;
        for (const auto& c : pull.crates) pulls.emplace_back(c, by, *on);
      }
    }
    for (auto& [crate, by, ev] : pulls) {
      PackageSignals& p = ctx_.package("crates", crate);
      p.evidence.push_back(std::move(ev));
      p.evidence.push_back({"knowledge-base:native_packages.yaml", "crates/" + by.substr(0, by.find('/')) + " pulls",
                            by + " pulls " + crate + " (no Cargo.lock: from the manifest)"});
      applicable_.insert(crate);
    }
  }

  void manifest(const std::string& rel, const TomlFile& t) {
    for (const char* k : {"package.rust-version", "workspace.package.rust-version"})
      if (auto v = t.version_like(k)) {
        auto pv = parse_version(*v);
        ctx_.constraint("rust", ConstraintKind::kSupport, {rel, k, *v},
                        pv ? Result<Range>(Range::at_least(*pv)) : Result<Range>(fail(ErrorCode::kInvalidArgument, "bad version")),
                        "minimum supported Rust version");
      }
    for (const char* k : {"package.edition", "workspace.package.edition"})
      if (auto e = t.version_like(k)) {
        if (auto floor = ctx_.kb().rust_edition_floor(*e))
          ctx_.constraint("rust", ConstraintKind::kSupport, {rel, k, *e}, Range::at_least(*parse_version(*floor)),
                          "edition " + *e + " needs Rust " + *floor + " (runtime_aliases.yaml)");
        else
          ctx_.warn(rel, std::string(k) + ": unknown edition " + str::quote(*e));
      }
    std::string name = t.string("package.name").value_or("");
    std::string dir = dir_of(rel);
    if (!name.empty()) {
      std::string build = t.string("package.build").value_or("");
      bool has_build_rs = ctx_.fs().is_file(join_rel(dir, build.empty() ? "build.rs" : build));
      auto links = t.string("package.links");
      if (has_build_rs || links) {
        PackageSignals& s = ctx_.package("crates", name);
        s.structural = BuildKind::kCompile;
        s.structural_reason = links ? "links = \"" + *links + "\": the crate links a native library"
                                    : "the crate has a build script";
        s.evidence.push_back({has_build_rs ? join_rel(dir, build.empty() ? "build.rs" : build) : rel,
                              has_build_rs ? "file" : "package.links", has_build_rs ? "present" : *links});
      }
    }
    for (const char* sect : {"dependencies", "build-dependencies", "dev-dependencies"}) {
      dependencies(rel, t, sect, true, "");
      for (const auto& target : t.keys("target")) {
        if (target.find('.') != std::string::npos) continue;  // not addressable by a dotted path
        dependencies(rel, t, "target." + target + "." + sect, CfgEval(target).applies(), target);
      }
    }
    // Features the crate turns on by default: default = ["openssl/vendored"].
    for (const auto& f : t.strings("features.default"))
      if (f.find('/') != std::string::npos) {
        feature_on(f, {rel, "features.default", f});
        default_features_.try_emplace(f, Evidence{rel, "features.default", f});
      }
    for (const auto& m : t.strings("workspace.members")) {
      if (m.find('*') != std::string::npos) {
        for (const auto& other : ctx_.fs().files_named("Cargo.toml")) {
          std::string d = dir_of(other);
          if (d != dir && d.starts_with(join_rel(dir, m.substr(0, m.find('*'))))) ctx_.workspace({d, "", "cargo"});
        }
      } else {
        ctx_.workspace({join_rel(dir, m), "", "cargo"});
      }
    }
  }

  void channel(const std::string& rel, const std::string& field, const std::string& ch) {
    if (ctx_.kb().rust_floating_channel(ch) || ch.starts_with("nightly-") || ch.starts_with("beta-")) {
      ctx_.note(rel, "channel " + str::quote(ch) + " names no release number; no floor taken from it");
      return;
    }
    ctx_.constraint("rust", ConstraintKind::kPin, {rel, field, ch}, parse_version_line(ch), "rustup installs this toolchain");
  }

  void toolchain_toml(const std::string& rel) {
    TomlFile t = TomlFile::read(ctx_, rel);
    if (!t.ok()) return;
    if (auto ch = t.string("toolchain.channel")) channel(rel, "toolchain.channel", *ch);
    else if (auto v = t.string("toolchain.version")) channel(rel, "toolchain.version", *v);
    ctx_.egress("static.rust-lang.org", EgressOrigin::kDefault, "rustup toolchain downloads", Evidence{rel, "toolchain", "rustup"});
  }

  // rust-toolchain without an extension: one line naming the channel, or
  // (since rustup 1.23) the same TOML as rust-toolchain.toml.
  void toolchain_legacy(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::string ch(str::trim(*text));
    if (ch.starts_with("[toolchain]")) {
      toolchain_toml(rel);
      return;
    }
    if (ch.empty() || ch.find('\n') != std::string::npos) {
      ctx_.warn(rel, "legacy rust-toolchain must hold exactly one line");
      return;
    }
    channel(rel, "channel", ch);
    ctx_.egress("static.rust-lang.org", EgressOrigin::kDefault, "rustup toolchain downloads", Evidence{rel, "channel", ch});
  }

  void cargo_config(const std::string& rel) {
    TomlFile t = TomlFile::read(ctx_, rel);
    if (!t.ok()) return;
    for (const auto& r : t.keys("registries"))
      if (auto idx = t.string("registries." + r + ".index"))
        ctx_.egress_url(idx->substr(idx->find('+') == std::string::npos ? 0 : idx->find('+') + 1), EgressOrigin::kConfig,
                        "Cargo registry " + r, {rel, "registries." + r + ".index", *idx});
    for (const auto& s : t.keys("source")) {
      if (auto reg = t.string("source." + s + ".registry"))
        ctx_.egress_url(reg->substr(reg->find('+') == std::string::npos ? 0 : reg->find('+') + 1), EgressOrigin::kConfig,
                        "Cargo source " + s, {rel, "source." + s + ".registry", *reg});
      if (auto d = t.string("source." + s + ".directory"))
        ctx_.note(rel, "source " + s + " is vendored in " + *d + "; no network needed for it");
      if (s == "crates-io" && t.string("source.crates-io.replace-with")) replaced_ = true;
    }
  }

  void lock(const std::string& rel) {
    auto path = ctx_.fs().open_path(rel, ctx_.fs().limits().max_lockfile_bytes);
    if (!path) return;
    std::ifstream in(*path, std::ios::binary);
    std::string line, name, version, source;
    bool in_package = false;
    auto flush = [&] {
      if (name.empty()) return;
      if (source == kCratesIoGit || source == kCratesIoSparse) {
        if (!replaced_) {
          ctx_.egress("index.crates.io", EgressOrigin::kLockfile, "crates.io sparse index", Evidence{rel, "source", source});
          ctx_.egress("static.crates.io", EgressOrigin::kLockfile, "crates.io crate downloads", Evidence{rel, "source", source});
        }
      } else if (!source.empty()) {
        std::string url = source.substr(source.find('+') == std::string::npos ? 0 : source.find('+') + 1);
        ctx_.egress_url(url, EgressOrigin::kLockfile, source.starts_with("git+") ? "git dependency" : "Cargo registry",
                        {rel, "package " + name + " source", source});
      }
      if (ctx_.kb().package("crates", name) || name.ends_with("-sys")) {
        PackageSignals& s = ctx_.package("crates", name);
        if (auto v = parse_version(version); v && (!s.locked || *v < *s.locked)) s.locked = v;
        s.evidence.push_back({rel, "package " + name, version});
      }
      name.clear();
      version.clear();
      source.clear();
    };
    bool top = true;
    while (std::getline(in, line)) {
      std::string_view l = str::trim(line);
      if (l == "[[package]]") {
        flush();
        in_package = true;
        top = false;
        continue;
      }
      if (l.starts_with('[')) {
        flush();
        in_package = false;
        top = false;
        continue;
      }
      if (top && l.starts_with("version = ")) {
        std::string v = str::unquote(l.substr(10));
        if (const KbLockFloor* f = ctx_.kb().lock_floor("Cargo.lock"); f && f->versions.count(v))
          ctx_.constraint(f->tool, ConstraintKind::kSupport, {rel, "version", v}, parse_npm_range(f->versions.at(v)),
                          "lockfile format implies cargo " + f->versions.at(v));
      }
      if (!in_package) continue;
      if (l.starts_with("name = ")) name = str::unquote(l.substr(7));
      else if (l.starts_with("version = ")) version = str::unquote(l.substr(10));
      else if (l.starts_with("source = ")) source = str::unquote(l.substr(9));
    }
    flush();
  }

  ScanContext& ctx_;
  // A Linux-applicable dependency declaration of a crate the knowledge base
  // knows, as pulled_crates() reads it.
  struct Declaration {
    std::string name;
    std::optional<Version> declared;           // lowest version of its requirement
    std::map<std::string, Evidence> features;  // feature → where it is turned on
    bool defaults = true;                      // default features on
    Evidence evidence;                         // the declaration itself
  };
  std::vector<Declaration> declarations_;
  std::map<std::string, Evidence> default_features_;  // "crate/feature" a [features] default turns on
  bool replaced_ = false;
  std::map<std::string, std::map<std::string, WorkspaceDep>> workspace_deps_;  // workspace dir → dep
  std::map<std::string, std::pair<std::string, Evidence>> gated_;  // crate → the non-Linux target declaring it, where
  std::set<std::string> applicable_;          // crates some Linux-applicable table declares
};

}  // namespace

void scan_rust(ScanContext& ctx) { RustScanner(ctx).run(); }

}  // namespace strata::contract
