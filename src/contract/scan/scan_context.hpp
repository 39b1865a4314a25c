// ScanContext: the state every ecosystem scanner writes into during one scan.
//
// Scanners record facts — declared tool constraints, per-package native-build
// signals, registries, commands — and never decide across ecosystems; the
// driver (scan.cpp) classifies native packages against the knowledge base and
// computes floors at the end (finish()). Keeping decisions out of the
// scanners means a fact found twice (a manifest and a lockfile) merges into
// one finding with two pieces of evidence. One context per scan; not
// thread-safe.
#pragma once

#include <initializer_list>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/model/contract.hpp"
#include "contract/knowledge/knowledge.hpp"
#include "contract/scan/repo_fs.hpp"
#include "util/version_range.hpp"

namespace strata::contract {

// Everything seen about one dependency package before it is classified.
struct PackageSignals {
  std::string ecosystem;  // npm | pypi | crates | go | gem | php-ext | cmake | meson | make
  std::string name;
  std::optional<Version> locked;     // exact version from a lockfile or an installed copy
  std::optional<Version> declared;   // lowest version of a declared range
  std::vector<Evidence> evidence;
  bool install_script = false;       // hasInstallScript / requiresBuild / bun scripts
  std::string install_script_text;   // the scripts themselves, when an installed copy shows them
  bool binding_gyp = false;          // root binding.gyp without gypfile:false
  bool build_allowed = false;        // pnpm onlyBuiltDependencies/allowBuilds, bun trusted
  bool build_denied = false;         // pnpm neverBuiltDependencies / allowBuilds: false
  // A Python lock entry with an sdist and no wheel; a gem locked without an
  // x86_64-linux platform gem.
  bool sdist_only = false;
  // A structural signal found in the repository's own code (build.rs, cgo,
  // CMakeLists.txt): the classification when the knowledge base has no entry.
  std::optional<BuildKind> structural;
  std::string structural_reason;
  std::string structural_fallback;      // "compile": what `structural` falls back to (NativePackage::fallback)
  std::vector<std::string> build_deps;  // libraries the structure names (find_package…)
  std::vector<std::string> commands;
  bool direct = false;                  // declared in a manifest (vs transitive)
  bool in_lock = false;                 // named by a lockfile entry (even without a readable version)
  bool optional_entry = false;          // some lock entry marks it optional
  bool required_entry = false;          // some lock entry does not
  bool linux_wheel = false;             // a Python lock pins a wheel (a Gemfile.lock a platform gem) for linux x86_64
  bool foreign_wheels_only = false;     // a Python lock pins wheels, none for linux x86_64
  // Why the package does not apply to a Linux image (a platform-gated Cargo
  // dependency, CGO_ENABLED=0); such a package is noted, not classified.
  std::string not_applicable;
};

class ScanContext {
 public:
  ScanContext(RepoFs& fs, const KnowledgeBase& kb) : fs_(fs), kb_(kb) {}

  RepoFs& fs() { return fs_; }
  const KnowledgeBase& kb() const { return kb_; }

  void ecosystem(std::string name) { ecosystems_.insert(std::move(name)); }
  bool has_ecosystem(std::string_view name) const { return ecosystems_.count(std::string(name)) > 0; }

  // Records a declared constraint on `tool`: what kind of statement it is
  // (support, pin, tested: contract.hpp) and, from its file, the project
  // it governs (scope_of). A range that does not parse is kept (verbatim,
  // with a warning) so nothing declared is dropped.
  void constraint(const std::string& tool, ConstraintKind kind, Evidence ev, const Result<Range>& range,
                  std::string note = {});
  // The project directory a repo-relative file belongs to: the nearest
  // enclosing directory with a project manifest (package.json, pyproject.toml,
  // go.mod, Cargo.toml, …), "." at the latest. CI workflows and devcontainers
  // govern the root.
  std::string scope_of(std::string_view file);
  // A tool the repository needs without saying which version: the project's
  // manifest (a package.json without engines), a Dockerfile that installs it.
  // Such evidence becomes the tool's entry only when nothing declares a
  // version (an entry with no floor: any version); with a declared version
  // the constraints already say the tool is needed.
  void needs_tool(const std::string& tool, Evidence ev, std::string note);
  // The same for an ecosystem's manifests: the shallowest one is the evidence.
  void needs_tool(const std::string& tool, const std::vector<std::string>& manifests, std::string note);

  PackageSignals& package(const std::string& ecosystem, const std::string& name);

  void build_lib(const std::string& pkg, const std::string& required_by);
  void run_lib(const std::string& pkg, const std::string& required_by);
  // A package with where it is needed (a program the code executes, a
  // Dockerfile install line) and for what (contract.hpp, Purpose: a package
  // needed for both is a build need); at most kRunLibEvidence pieces of
  // evidence are kept per package.
  void run_lib(const std::string& pkg, const std::string& required_by, Evidence ev,
               Purpose purpose = Purpose::kBuild);
  void build_lib(const std::string& pkg, const std::string& required_by, Evidence ev,
                 Purpose purpose = Purpose::kBuild);
  static constexpr std::size_t kRunLibEvidence = 5;
  // Records a host the repository reaches. `host` may carry a port
  // ("r.example.com:8080", as url_host gives it); otherwise `port` applies.
  // `purpose` as for libraries: a host any build need reaches is a build host.
  void egress(const std::string& host, EgressOrigin origin, const std::string& reason,
              std::optional<Evidence> ev = std::nullopt, const std::string& mirror_env = {}, int port = 443,
              Purpose purpose = Purpose::kBuild);
  // A declaration that cannot be granted; also a warning on its file.
  void egress_rejected(RejectedEgress r);
  // Adds the host of a URL ("https://r.example.com/x" → "r.example.com"),
  // port 80 for http://, and the hosts the URL is known to redirect to (a
  // GitHub release asset or /raw/ file, rustup-init).
  void egress_url(std::string_view url, EgressOrigin origin, const std::string& reason, Evidence ev,
                  Purpose purpose = Purpose::kBuild);
  void command(const std::string& name, const std::string& reason);
  // Packages built for one line of a runtime (php8.4-intl for PHP 8.4), which
  // a scanner names for `line` before the floors are known. finish() renames
  // them to the line of the version the contract provisions when that is one
  // line (a Dockerfile's php:8.5 beside require.php ^8.4: php8.5-intl), and
  // warns once on `why.file` with `message`, whose "{line}" is the line they
  // are named for and "{why}" the reason. An empty `message` marks the
  // archive's own line (Debian's 8.2): the packages keep it while the support
  // admits it, else follow the provisioned line or the support's lowest, with
  // a note. A package is renamed only when every need of it is the tool's own
  // ("php:ext-intl"). `versionless`: names without a line (php-redis) are
  // `line`'s too.
  void line_named(const std::string& tool, std::string line, Evidence why, std::string message,
                  bool versionless = false);
  void workspace(Workspace ws);
  // A need beyond building and testing that the repository asks to provision ("run").
  void include(const std::string& need) { include_.insert(need); }
  // A Dockerfile the repository uses as a development environment although
  // its name does not say so: a compose service builds it and bind-mounts the
  // source tree over it (`volumes: [.:/app]`), so the code runs from the
  // checkout. development(f): such a file, or development_file(f).
  void mark_development(const std::string& dockerfile, Evidence why) { development_dockerfiles_.try_emplace(dockerfile, std::move(why)); }
  bool development(std::string_view file) const;
  const Evidence* development_reason(std::string_view file) const;
  void warn(std::string file, std::string message) { fs_.warn(std::move(file), std::move(message)); }
  void note(std::string file, std::string message) { fs_.note(std::move(file), std::move(message)); }

  // Package manager facts the native classifier needs (pnpm ≥10 skips
  // unlisted build scripts): the pnpm version each project directory pins
  // with packageManager, so one project's pnpm never changes how another
  // project's lockfile is read.
  std::map<std::string, Version> pnpm_versions;
  // The pnpm version that governs a repo-relative file: the nearest enclosing
  // project directory that pins one.
  std::optional<Version> pnpm_version_for(std::string_view file) const;
  // npm lockfile entries that are prebuilt Linux platform packages
  // ("@swc/core-linux-x64-gnu") → the lockfile that names them.
  std::map<std::string, std::string> npm_platform_packages;
  // Cargo features switched on anywhere in the tree ("openssl/vendored") →
  // where.
  std::map<std::string, Evidence> crate_features;
  // CGO_ENABLED as a repository sets it (Dockerfile ENV, Makefile, CI env).
  std::optional<Evidence> cgo_setting;

  const std::map<std::pair<std::string, std::string>, PackageSignals>& packages() const { return packages_; }

  // Computes floors and conflicts, sorts everything and returns the contract.
  Contract finish(std::string root, std::vector<NativePackage> natives);

 private:
  struct ToolConstraints {
    std::vector<Constraint> constraints;
    std::vector<std::optional<Range>> ranges;
    std::set<std::string> seen;  // each statement once: file, field, value and kind
  };
  RuntimeFloor floor_of(const std::string& tool, const ToolConstraints& tc);
  std::optional<std::set<std::string>> project_dirs_;
  std::map<std::string, Evidence, std::less<>> development_dockerfiles_;
  RepoFs& fs_;
  const KnowledgeBase& kb_;
  std::set<std::string> ecosystems_;
  std::map<std::string, ToolConstraints> tools_;
  std::map<std::string, std::vector<Constraint>> needed_tools_;
  std::map<std::pair<std::string, std::string>, PackageSignals> packages_;
  std::map<std::string, std::set<std::string>> build_libs_, run_libs_;
  std::map<std::string, std::vector<Evidence>> build_lib_evidence_, run_lib_evidence_;
  std::map<std::string, Purpose> build_lib_purpose_, run_lib_purpose_;
  std::set<std::string> include_;
  std::map<std::pair<std::string, int>, EgressHost> egress_;
  std::vector<RejectedEgress> egress_rejected_;
  std::map<std::string, std::set<std::string>> commands_;
  std::vector<Workspace> workspaces_;
  struct LineNamed {
    std::string line;
    Evidence why;
    std::string message;
    bool versionless = false;
  };
  std::map<std::string, LineNamed> line_named_;
  void rename_lib(bool build, const std::string& from, const std::string& to);
  void follow_provisioned_line(const std::string& tool, const LineNamed& named, const RuntimeFloor* rf);
};

// True when a repo-relative path lies in a tree that is not part of building
// and testing the repository: examples, samples, demos, documentation,
// packaging and release files, test fixtures. Its version statements are
// reported (a note), never the repository's own.
bool set_aside_tree(std::string_view file);

// True when a repo-relative file belongs to how the repository is developed,
// built or tested rather than to what it ships: a hidden directory or file
// (.devcontainer/, .github/, .codesandbox/, .gitpod.Dockerfile), or a path
// or a Dockerfile stage name with a word that says so (Dockerfile.dev,
// docker/ci/, a `test` stage).
bool development_name(std::string_view path);
// True when `text`, split at every character that is not a letter or digit
// (lower-cased), has one of `words` ("docker/ci/Dockerfile" has "ci").
bool has_word(std::string_view text, std::initializer_list<std::string_view> words);
bool development_file(std::string_view file);

// "https://user@host:8080/x" → "host:8080"; "" when the text has no host.
std::string url_host(std::string_view url);

// The text with the user information of every URL in it replaced
// ("https://__token__:s3cret@host/…" → "https://(credential, not shown)@host/…");
// "git@" (an SSH user name) is kept.
std::string without_credentials(std::string_view text);

// The same over everything a contract quotes: evidence values, reasons, notes.
void scrub_credentials(Contract& c);

}  // namespace strata::contract
