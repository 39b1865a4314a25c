// A pinned runtime as a content-addressed layer: resolve the release
// (release.hpp), fetch and verify its archives into
// $STRATA_HOME/toolchains/archives/<alg>/<hex>, unpack them rootless into
// one deterministic layer under /opt/strata/toolchains/<tool>/<version>/
// with a link in /usr/local/bin for every program of its bin/ (a login
// shell that resets PATH still finds it), cached by its key.
//
// The key is sha256 of {recipe, tool, version, arch, each archive's role and
// digest, compression}: the same release on any machine, from any mirror
// serving the same bytes, gives the same layer digest. Archives refused:
// one that does not verify, a 404, a truncated body, entries outside one
// top directory, absolute symlinks, links leaving the toolchain's
// directory. Nothing is cached from a refused release.
//
// Cache ($STRATA_HOME/toolchains/): releases/<id>.json (a resolution, so a
// pinned version needs no network on a hit and --offline can pick among
// what is cached), archives/, layers/<key>.json beside blobs/sha256/<hex>.
// Every file appears by link (fs::publish_file) once verified.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "layer/toolchain/release.hpp"
#include "oci/descriptor.hpp"
#include "oci/digest.hpp"
#include "util/fs.hpp"

namespace strata::layer::toolchain {

// Bump when the layer's bytes for the same archives change (paths, links,
// modes, compression settings, which components are kept).
inline constexpr std::string_view kToolchainRecipe = "strata-toolchain-1";
inline constexpr std::string_view kToolchainRoot = "/opt/strata/toolchains";
inline constexpr std::string_view kAnnotationPrefix = "dev.strata.toolchain.";

struct ToolchainRequest {
  ResolveRequest resolve;
  std::filesystem::path home;  // $STRATA_HOME
  bool offline = false;        // only what the cache holds
  // The archives must be in the cache afterwards even on a layer hit (a
  // bundle packs them; cache gc may have evicted them since the layer was built).
  bool need_archives = false;
};

struct ToolchainLayer {
  Release release;
  std::string key;                 // hex
  std::string prefix;              // /opt/strata/toolchains/node/20.18.0
  oci::Descriptor layer;           // gzip layer blob
  oci::Digest diff_id = oci::Digest::sha256_of("");
  std::filesystem::path blob;      // the layer in the cache
  std::vector<std::string> env;    // besides PATH: npm_config_nodedir=…, GOTOOLCHAIN=local, JAVA_HOME=…, DOTNET_ROOT=…
  std::vector<std::string> commands;  // linked into /usr/local/bin
  bool cached = false;             // the layer was found by its key
  // The shared lease on the home caches (fs::home_lease_path), held while
  // this layer's blob may still be read: `cache gc` leaves them alone.
  std::shared_ptr<fs::FileLock> lease;
  std::uint64_t downloaded = 0;    // archive bytes fetched by this call

  // PATH with the toolchain's program directory first (`path` = the image's PATH).
  std::string path_with(const std::string& path) const;
  // The annotation value (JSON: release, source, archives with URL and digest, layer).
  std::string annotation() const;
};

// Where a tool's programs are below its prefix: "bin", or "" for .NET, whose
// archive keeps `dotnet` at its root (beside sdk/, shared/, host/).
std::string_view program_dir(std::string_view tool);

Result<ToolchainLayer> ensure_toolchain(oci::http::Transport& http, const ToolchainRequest& request);

// The cache key of a resolved release (its archives' digests known).
std::string toolchain_key(const Release& release);

// The toolchain cache as a bundle fills it (layer/bundle carries releases
// across an air gap): where a verified archive is kept, a release as the
// record remembered for it (JSON) and read back (its source parsed from the
// record; every digest checked for form), and the record written into the
// home unless one is there, so --offline finds the release.
std::filesystem::path archive_cache_path(const std::filesystem::path& home, const Archive& archive);
std::string release_record(const Release& release);
Result<Release> parse_release_record(std::string_view json, std::string_view where);
Result<void> remember_release(const std::filesystem::path& home, const Release& release);

// What `strata toolchain install --dir` leaves: DIR/<tool>/<version>/ (the
// layer's prefix, unpacked) and DIR/bin/<program> links into it. An
// installed version is kept (its marker names the key); a different key in
// the same place is an error.
struct InstalledDir {
  std::filesystem::path root;  // DIR/<tool>/<version>
  std::vector<std::string> env;
  std::vector<std::string> commands;
  bool already = false;
};
Result<InstalledDir> install_dir(const ToolchainLayer& layer, const std::filesystem::path& dir);

}  // namespace strata::layer::toolchain
