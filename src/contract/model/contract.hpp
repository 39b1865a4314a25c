// The environment contract: what a repository needs from the image and the
// network before it can build, each finding with the evidence that justifies
// it. Plain value types, produced by scan_repository() (scan.hpp) and written
// by to_yaml()/to_json() (serialize.hpp); the schema is docs/contract.md.
// Ordering is deterministic (sorted by tool, package, host) so two scans of
// the same tree produce the same bytes.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace strata::contract {

inline constexpr int kContractSchemaVersion = 1;

// Where a finding comes from: a repo-relative file, the field inside it, and
// the value read there. `file` may be "knowledge-base:<name>" for facts that
// come from strata's own data tables.
struct Evidence {
  std::string file;
  std::string field;
  std::string value;
  friend bool operator==(const Evidence&, const Evidence&) = default;
};

// What a source says about a tool's version (docs/contract.md, "Runtime
// versions"):
//   support — the range the project declares it supports (engines,
//             requires-python, rust-version, the go directive); its lower
//             bound is the floor;
//   pin     — the exact version or line the project selects for itself
//             (.nvmrc, .python-version, .tool-versions, rust-toolchain,
//             packageManager, the FROM of the stage that is the image);
//   tested  — a version CI or a devcontainer runs (a matrix entry is one
//             version tested, not a requirement).
enum class ConstraintKind { kSupport, kPin, kTested };
const char* constraint_kind_name(ConstraintKind k);

// One declared constraint on a tool, kept verbatim with its reading.
struct Constraint {
  Evidence source;
  std::string range;   // canonical reading, e.g. ">=20.0.0 <21.0.0"; "" when unreadable
  std::string floor;   // lowest admitted version, "" if unbounded or unknown
  std::string note;    // e.g. "lts/* resolved via runtime_aliases.yaml (as of …)"
  ConstraintKind kind = ConstraintKind::kSupport;
  // The directory of the project or sub-project the source governs: "." for
  // the repository's root project, CI and devcontainers; a sub-project's
  // directory (one with its own manifest) for its manifest, version files
  // and Dockerfiles (a builder stage there is tested by that sub-project).
  std::string scope = ".";
};

// A sub-project whose own sources say more than the root's: its support and
// pin, for the plan to check the version provisioned against.
struct ScopedRequirement {
  std::string scope;
  std::string satisfying;  // the scope's support, "" when it declares none
  std::string floor;
  std::string pin;         // the scope's pin as a range, "" when none
  friend bool operator==(const ScopedRequirement&, const ScopedRequirement&) = default;
};

struct RuntimeFloor {
  std::string floor{};                      // the lower bound of `satisfying`; "" when unbounded
  // The root project's support: the intersection of its `support` ranges;
  // without any, its pin's range; without one, the union of the versions
  // tested. Sub-projects and other trees never narrow it.
  std::string satisfying{};
  std::string pin{};                        // the root project's pin as a range, "" when none
  std::vector<std::string> tested{};        // the versions CI and devcontainers run, as ranges, lowest first
  // The version to provision, as a range: the root's pin when it lies in
  // `satisfying`, else the newest tested version in it; "" when neither
  // (then the lowest release in `satisfying` a source has). Why, in words.
  std::string provision{};
  std::string provision_reason{};
  std::vector<ScopedRequirement> scopes{};  // sub-projects with needs of their own
  std::vector<Constraint> constraints{};
  // One line per pin outside its own scope's support, naming both sources.
  std::vector<std::string> conflicts{};
};

enum class BuildKind { kNone, kPrebuilt, kDownload, kCompile };
const char* build_kind_name(BuildKind k);

// How sure the classification is: `known` from the knowledge base, `inferred`
// from a structural signal (binding.gyp, build.rs, import "C"), `assumed` from
// a weak signal (an install script of unknown effect).
enum class Certainty { kKnown, kInferred, kAssumed };
const char* certainty_name(Certainty c);

// What compiling a native package needs: Debian packages to build and to
// run it, commands on PATH, and hosts reached during the compile (node-gyp's
// headers). For a package that downloads a prebuilt and compiles when the
// download fails, the router decides which of the two the image must carry.
struct CompileNeeds {
  std::vector<std::string> build_libs;
  std::vector<std::string> run_libs;
  std::vector<std::string> commands;
  std::vector<std::string> egress;
  friend bool operator==(const CompileNeeds&, const CompileNeeds&) = default;
};

struct NativePackage {
  std::string ecosystem;  // npm | pypi | crates | go | cmake | meson | make
  std::string name;
  std::string version;    // locked or lowest declared version; "" if unknown
  BuildKind build = BuildKind::kNone;
  std::string fallback;   // e.g. "compile" when a download can fall back to a build
  // Only ever installed as an optional dependency: a failed build is skipped
  // by the package manager, so it needs no toolchain (written only when true).
  bool optional = false;
  Certainty certainty = Certainty::kKnown;
  std::string reason;
  std::vector<Evidence> evidence;
  std::vector<std::string> download_hosts;     // build == download: where the prebuilt comes from
  std::optional<CompileNeeds> fallback_needs;  // fallback == compile: what the compile would need
};

// Which need a finding serves (docs/contract.md, "Needs"):
//   build — building and testing the repository, the sandbox's job: what
//           `plan` and `provision` deliver by default;
//   run   — running the production image: what only the image stages of a
//           Dockerfile that is not a development one install or download
//           (ffmpeg in the final stage). Reported; provisioned when asked
//           (`--include run`, or `include: [run]` in .mac/project.yaml).
// A finding with both is a build need.
enum class Purpose { kBuild, kRun };
const char* purpose_name(Purpose p);

struct SystemLib {
  std::string package;                  // Debian package name
  std::vector<std::string> required_by; // "npm:sharp", "toolchain:npm-compile", "exec:ffmpeg", …
  // Where the repository's own code executes a program this package ships
  // (file, "line N", the call); written only when present.
  std::vector<Evidence> evidence{};
  Purpose purpose = Purpose::kBuild;
};

enum class EgressOrigin { kDeclared, kLockfile, kConfig, kDefault, kInstallTime };
const char* egress_origin_name(EgressOrigin o);

struct EgressHost {
  std::string host;  // lower case; "*.example.com" only when declared so
  int port = 443;
  EgressOrigin origin = EgressOrigin::kDefault;
  std::string access = "read-only";
  std::string reason;
  std::string mirror_env;  // env var that redirects the download, if any
  std::vector<Evidence> evidence;
  Purpose purpose = Purpose::kBuild;
};

// A `.mac/project.yaml` egress entry that cannot be granted (a malformed or
// hostile host, a port out of range, access other than read-only, a
// duplicate): the file, the entry ("egress[2]") and why. The scan still
// succeeds; `strata egress render` refuses a contract that has any.
struct RejectedEgress {
  std::string file;
  std::string entry;
  std::string message;
};

struct RequiredCommand {
  std::string name;
  std::vector<std::string> reasons;
};

struct Workspace {
  std::string path;     // repo-relative directory, "." for the root
  std::string name;     // package name when known
  std::string manager;  // npm | yarn | pnpm | bun | cargo | go | uv
};

struct Diagnostic {
  std::string file;
  std::string message;
};

struct Contract {
  int schema_version = kContractSchemaVersion;
  std::string root;  // the scanned directory as given
  std::vector<std::string> ecosystems;
  std::map<std::string, RuntimeFloor> runtime_floors;  // by tool: node, npm, python, go…
  bool native_build_required = false;
  std::vector<NativePackage> native_packages;
  std::string system_libs_source = "table";  // table | fallback
  std::vector<SystemLib> build_libs;
  std::vector<SystemLib> run_libs;
  std::vector<EgressHost> egress_hosts;
  std::vector<RejectedEgress> egress_rejected;
  std::vector<RequiredCommand> required_commands;
  std::vector<Workspace> workspaces;
  // The needs beyond building and testing the repository that its own
  // `.mac/project.yaml` asks to provision: "run" (Purpose::kRun).
  std::vector<std::string> include;
  std::map<std::string, std::string> knowledge;  // table name → "as of" date
  std::vector<Diagnostic> warnings;  // malformed or suspicious inputs
  std::vector<Diagnostic> notes;     // skipped files, limits reached
};

}  // namespace strata::contract
