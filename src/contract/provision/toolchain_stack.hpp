// The task-toolchain rows of a plan made real: each runtime the plan routes
// to a task toolchain becomes a toolchain layer (layer::toolchain: resolved
// inside the row's range, verified, cached by content) stacked on the image
// provision returns — base or overlay, then one layer per toolchain — with
// PATH and the runtime's variables in the config and an annotation per
// toolchain (tool, release, source, archive digests, layer).
//
// Which release: the range the row carries, narrowed to the floor's line
// (node, java: its major; go, rust, python, dotnet: major.minor), the newest release the
// source lists there — so `>=24 <25` is the newest 24.x, `>=3.10 <3.11` the
// newest 3.10.x; a range that admits one version pins it.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "contract/route/plan.hpp"
#include "layer/sbom/provenance.hpp"
#include "layer/toolchain/toolchain_layer.hpp"
#include "oci/platform.hpp"
#include "oci/store.hpp"

namespace strata::contract::provision {

struct ToolchainOptions {
  bool enabled = true;  // false: --no-toolchain-layer (the task brings its own runtimes)
  std::map<std::string, std::string> sources;                              // tool → --toolchain-source value
  std::map<std::string, std::vector<std::filesystem::path>> keyrings;      // tool → --toolchain-keyring files
  bool offline = false;
};

// The release request of a plan row: its tool, the version want and the source.
Result<layer::toolchain::ResolveRequest> toolchain_request(const route::TaskToolchain& row,
                                                           const oci::Platform& platform,
                                                           const ToolchainOptions& options);

struct Stacked {
  oci::Descriptor manifest;                       // the image with the toolchains
  std::vector<layer::toolchain::ToolchainLayer> toolchains;
};

// Stacks the toolchain layers of `rows` on `lower` (a platform manifest in
// `dest`), writes the blobs, config and manifest into `dest` and tags the
// result `tag` when given.
Result<Stacked> stack_toolchains(oci::Store& dest, const oci::Descriptor& lower,
                                 const std::vector<route::TaskToolchain>& rows, const oci::Platform& platform,
                                 const ToolchainOptions& options, oci::http::Transport& http,
                                 const std::filesystem::path& home, std::optional<std::string_view> tag);

// How a stacked image was made, for its provenance: the image below, each
// toolchain release and every archive it was unpacked from, with digests.
inline constexpr std::string_view kToolchainsBuildType = "https://strata.dev/buildtypes/toolchains/v1";
layer::sbom::ProvenanceInput toolchain_provenance(const oci::Descriptor& lower, const Stacked& stacked,
                                                  const oci::Platform& platform);

// The toolchain rows of a plan strata delivers as layers.
std::vector<route::TaskToolchain> deliverable_toolchains(const route::Plan& plan);

}  // namespace strata::contract::provision
