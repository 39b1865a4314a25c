// A toolchain release: which runtime, which exact version, from which
// source, and the archives that make it up with the digest each must have
// once verified as its project publishes it:
//   node    SHASUMS256.txt.asc, clearsigned by a Node.js releaser (gpgv
//           against the compiled-in keys), names the archive's sha256;
//   node from the npm registry: the packument's `integrity` (sha512) of
//           node-linux-<arch> and of npm (that package has no npm);
//   go      the sha256 of the release listing (?mode=json&include=all);
//   rust    the installer's .sha256, and its .asc signed by the Rust key
//           (checked on the downloaded file);
//   python  the SHA256SUMS of the python-build-standalone release;
//   java    Eclipse Temurin: the sha256 and size the Adoptium API (v3)
//           gives for the feature release's linux JDK archive;
//   dotnet  the .NET SDK: the sha512 its channel's releases.json gives.
// resolve_release reads the source's index for a range (the newest release
// inside it, never a pre-release) or goes straight to the pinned version.
// Thread-safe; everything goes through the Transport seam.
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oci/http/transport.hpp"
#include "util/error.hpp"

namespace strata::layer::toolchain {

// Tools strata can install as a toolchain layer.
bool is_toolchain_tool(std::string_view tool);
inline constexpr std::string_view kToolchainTools = "node, go, rust, python, java, dotnet";

// How many leading numbers of a version make the line a floor means: node's
// and java's major (20, 21), the others' major.minor (1.22, 3.12, and the
// .NET channel 8.0). `>=21.0.0 <22` is the newest 21.x.
std::size_t line_parts(std::string_view tool);
// The line of `version` for `tool` ("21.0.5" → "21", "8.0.404" → "8.0"); ""
// when the version has fewer numbers.
std::string line_of(std::string_view tool, std::string_view version);
// A Debian architecture ("amd64", "arm64") as TOOL's release downloads name
// it: node and dotnet x64, rust and python x86_64/aarch64, java (Adoptium)
// x64/aarch64; go and the rest as Debian does.
std::string download_arch(std::string_view tool, std::string_view arch);

// Where a tool's releases come from.
struct Source {
  enum class Kind { kOfficial, kMirror, kNpm };
  Kind kind = Kind::kOfficial;
  std::string url;  // the base: https://nodejs.org/dist, a mirror, an npm registry
  std::string describe() const;  // the URL, or "npm:URL"
};

// The official source of `tool`; its hosts.
Source official_source(std::string_view tool);
// "npm", "npm:URL" or a base URL with the official layout, for `tool`.
Result<Source> parse_source(std::string_view tool, std::string_view text);
// "node=npm" (the --toolchain-source form) → tool and source.
Result<std::pair<std::string, Source>> parse_source_option(std::string_view text);
// The hosts a download from `source` reaches (redirects included: go.dev
// sends archives to dl.google.com, GitHub to its asset hosts).
std::vector<std::string> source_hosts(std::string_view tool, const Source& source);

// Which versions a request admits. `exact` pins one; otherwise `admits`
// decides (the caller's range semantics: npm, PEP 440, Go) and the newest
// admitted release wins. `text` is for messages (">=20.4.0 <21.0.0").
struct VersionWant {
  std::optional<std::string> exact;
  std::function<bool(std::string_view version)> admits;
  std::string text;
  // The line every admitted version is in (line_of), when the caller knows
  // one: sources indexed by line (Adoptium's feature releases, .NET's
  // channels) then read that line's index only. "" for any range.
  std::string line = {};
};

// For a source that pairs releases (npm's `npm` package with a Node
// release): whether `version` satisfies the semver `range` of a
// package's `engines` field. Supplied by the caller (contract's ranges).
using RangeCheck = std::function<bool(std::string_view range, std::string_view version)>;

struct Archive {
  std::string role;          // "runtime"; "npm" (the npm package beside node from the npm registry)
  std::string url;
  std::string name;          // the file name, for messages and the layout
  std::string algorithm;     // sha256 | sha512
  std::string hex;           // the digest it must have
  std::uint64_t size = 0;    // 0: not published
  std::string verified_by;   // "SHASUMS256.txt.asc signed by <fpr>", …
  std::string version;       // the npm package's version (role npm); Temurin's full version (21.0.5+11)
  std::string signature_url; // a detached signature to check on the file (rust .asc); "" for none
};

struct Release {
  std::string tool;
  std::string version;   // exact: 20.18.0, 1.22.5, 1.79.0, 3.10.15, 21.0.5 (Temurin 21.0.5+11), 8.0.404
  std::string arch;      // OCI architecture: amd64, arm64
  Source source;
  std::vector<Archive> archives;  // the runtime first
};

struct ResolveRequest {
  std::string tool;
  VersionWant want;
  std::string arch = "amd64";
  Source source;
  std::vector<std::filesystem::path> extra_keyrings;  // --toolchain-keyring
  RangeCheck satisfies;                               // for npm's engines; required for node=npm
  // The release `version` was resolved to and verified before (the
  // toolchain cache), if any: once the index has picked the version it is
  // returned as is, so a cached range costs the index alone. Optional.
  std::function<std::optional<Release>(const std::string& version)> known;
};

Result<Release> resolve_release(oci::http::Transport& http, const ResolveRequest& request);

// GET with redirects followed (at most 5), the body collected up to `limit`
// bytes; a non-2xx answer is an error naming the URL.
Result<std::string> get_text(oci::http::Transport& http, const std::string& url, std::size_t limit,
                             const std::string& accept = "");

// Release versions ordered as numbers ("1.10.0" > "1.9.2"); only digits and dots.
bool release_version_less(std::string_view a, std::string_view b);
bool is_release_version(std::string_view v);

}  // namespace strata::layer::toolchain
