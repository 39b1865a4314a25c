// KnowledgeBase: strata's facts about packages and tools, loaded from the
// YAML tables in src/contract/knowledge/ (embedded into the library at build
// time, so an installed binary needs no data path). Code decides how to read
// a repository; these tables decide what a package name means. Immutable after
// load; safe to share between threads.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "contract/model/contract.hpp"
#include "util/version_range.hpp"
#include "util/error.hpp"

namespace strata::contract {

struct KbRule {
  std::optional<Range> when;  // nullopt: any version, including an unknown one
  std::string when_text;
  BuildKind build = BuildKind::kNone;
  std::string fallback;
  std::string note;
  std::vector<std::string> egress;
  std::string mirror_env;
  std::vector<std::string> build_deps;  // when set, replace the package's for this version range
};

// A Cargo feature that changes what a crate needs (openssl-sys `vendored`
// builds OpenSSL instead of linking it): when on, its libraries replace the
// package's.
struct KbFeature {
  std::vector<std::string> enabled_by;  // "crate/feature" spellings that turn it on
  std::string note;
  std::vector<std::string> build_deps;
  std::vector<std::string> run_deps;
};

// Crates a crate pulls in (diesel's `postgres` feature → pq-sys; reqwest's
// default TLS → openssl-sys before 0.13, aws-lc-sys since).
struct KbPull {
  std::string feature;        // "*": whatever the features; "default": unless default-features = false
  std::optional<Range> when;  // nullopt: any version; else only a known version inside it
  std::vector<std::string> crates;
};

struct KbPackage {
  std::vector<KbRule> rules;
  std::map<std::string, std::vector<std::string>> extras;  // Python extra → packages it installs
  std::map<std::string, KbFeature> features;                // Cargo feature → effect
  std::vector<KbPull> pulls;                                // crates only
  std::vector<std::string> build_deps;
  std::vector<std::string> run_deps;
  std::vector<std::string> run_deps_when_compiled;
  std::vector<std::string> egress;  // hosts reached whatever the rule
  std::string egress_reason;        // when they are reached, if not at install time ("pulls … at test time")
  // The entry covers a family of packages: every name that continues it after
  // a separator ('.', ':', '/'), as a Maven group covers its artifacts
  // ("org.testcontainers" → "org.testcontainers:postgresql") and a NuGet id
  // its sub-packages ("Microsoft.Playwright" → "Microsoft.Playwright.NUnit").
  bool family = false;
};

struct KbToolchain {
  std::vector<std::string> build_deps;
  std::vector<std::string> commands;
  std::vector<std::pair<std::string, std::string>> egress;  // host, reason
};

struct KbScriptPattern {
  std::string contains;
  BuildKind build = BuildKind::kCompile;
  std::string fallback;
  std::vector<std::string> egress;
  std::vector<std::string> build_deps;
  std::vector<std::string> commands;
  std::string reason;
};

// What corepack downloads for a package manager named in packageManager.
struct KbCorepack {
  std::vector<std::string> hosts;
  std::string mirror_env;
  std::string reason;
};

// A package-manager command a Dockerfile runs (`npm install -g less`).
struct KbInstallCommand {
  std::string ecosystem;                 // whose scanner decides the registry when a manifest is present
  std::vector<std::string> tools;        // what it needs: node, and yarn for yarn
  std::vector<std::string> subcommands;  // "install", "i", …
  std::vector<std::string> hosts;        // its default registry
  std::string reason;
};

// A PHP extension (`ext-gd`): the Debian packages that add it to php8.2-cli
// (empty when php8.2-cli already has it), the -dev libraries compiling it
// needs, and whether it comes from PECL rather than PHP's own sources.
struct KbPhpExtension {
  std::vector<std::string> debian;
  std::vector<std::string> build_deps;
  bool pecl = false;
};

// A lockfile format → the tool range it implies.
struct KbLockFloor {
  std::string tool;
  std::map<std::string, std::string> versions;      // format version → range
  std::vector<std::pair<int, std::string>> thresholds;  // min metadata version → range
  std::string range;                                  // format-independent range
};

class KnowledgeBase {
 public:
  // The tables compiled into the library.
  static Result<KnowledgeBase> embedded();
  // Parses tables given as (file name, YAML text); used by embedded() and tests.
  static Result<KnowledgeBase> parse(const std::vector<std::pair<std::string, std::string>>& files);

  // The package's rule for `version` (nullopt = unknown version): the first
  // rule whose range admits it, or a rule without `when`. For an unknown
  // version the first rule is used.
  const KbRule* match(std::string_view ecosystem, std::string_view name,
                      const std::optional<Version>& version) const;
  const KbPackage* package(std::string_view ecosystem, std::string_view name) const;
  // The table's name for a package: `name` itself when the table has it, else
  // the longest family entry that `name` continues; nullptr when neither.
  const std::string* entry_for(std::string_view ecosystem, std::string_view name) const;
  const KbToolchain* toolchain(std::string_view key) const;
  const KbScriptPattern* install_script(std::string_view script) const;
  const std::vector<std::string>* cmake_package(std::string_view name) const;
  const std::vector<std::string>* pkgconfig_module(std::string_view name) const;
  const KbLockFloor* lock_floor(std::string_view lockfile) const;
  // Debian runtime packages of a -dev build package (libpq-dev → libpq5).
  const std::vector<std::string>* runtime_packages(std::string_view dev) const;
  // Debian packages that ship a program an application executes ("gs" →
  // ghostscript); nullptr when the table does not know the program.
  const std::vector<std::string>* program_packages(std::string_view program) const;
  // What a Debian package only Recommends but its usual work needs (git and
  // curl reach https hosts through the system's trust store, ca-certificates):
  // an overlay installs no recommends, so the contract names them.
  const std::vector<std::string>* needed_recommends(std::string_view package) const;
  // What a Debian metapackage that depends on one package depends on
  // (default-mysql-client → mariadb-client).
  const std::vector<std::string>* metapackage(std::string_view package) const;
  // Debian 12's package for a name another distribution's apt has and
  // Debian 12 has neither as a package nor as a virtual one (Ubuntu's
  // firefox → firefox-esr, an older release's libssl1.1 → libssl3).
  const std::vector<std::string>* foreign_apt_name(std::string_view package) const;
  // Debian packages for an Alpine package a Dockerfile `apk add`s.
  const std::vector<std::string>* alpine_package(std::string_view name) const;
  // "yarn-berry", "yarn-classic", "pnpm", "npm".
  const KbCorepack* corepack(std::string_view manager) const;
  // The tool a package installs ("nodejs" → node, "golang-go" → go).
  const std::string* runtime_install(std::string_view package) const;
  const KbInstallCommand* install_command(std::string_view command) const;
  // A PHP extension by its lower-case name ("gd", "pdo_mysql"); nullptr when unknown.
  const KbPhpExtension* php_extension(std::string_view name) const;
  // Container images whose tag names a tool version ("node" → node).
  const std::string* image_tool(std::string_view image) const;

  std::optional<int> node_lts_major(std::string_view codename) const;
  // Majors of every LTS line, ascending.
  std::vector<int> node_lts_majors() const;
  bool node_latest_alias(std::string_view a) const;
  bool node_unknown_alias(std::string_view a) const;
  std::optional<std::string> rust_edition_floor(std::string_view edition) const;
  bool rust_floating_channel(std::string_view c) const;

  // table file name → its as_of date, for the contract's `knowledge` section.
  const std::map<std::string, std::string>& dates() const { return dates_; }

 private:
  std::map<std::string, std::map<std::string, KbPackage, std::less<>>, std::less<>> packages_;
  std::map<std::string, KbToolchain, std::less<>> toolchains_;
  std::vector<KbScriptPattern> scripts_;
  std::map<std::string, std::vector<std::string>, std::less<>> cmake_, pkgconfig_, runtime_, programs_, alpine_,
      needed_recommends_, metapackages_, foreign_apt_names_;
  std::map<std::string, KbCorepack, std::less<>> corepack_;
  std::map<std::string, std::string, std::less<>> images_, runtime_installs_;
  std::map<std::string, KbInstallCommand, std::less<>> install_commands_;
  std::map<std::string, KbLockFloor, std::less<>> lock_floors_;
  std::map<std::string, KbPhpExtension, std::less<>> php_extensions_;
  std::map<std::string, int, std::less<>> lts_;
  std::vector<std::string> latest_aliases_, unknown_aliases_, floating_channels_;
  std::map<std::string, std::string, std::less<>> editions_;
  std::map<std::string, std::string> dates_;

  friend class KnowledgeLoader;
};

// Parses a BuildKind name ("none", "prebuilt", "download", "compile").
std::optional<BuildKind> parse_build_kind(std::string_view s);

}  // namespace strata::contract
