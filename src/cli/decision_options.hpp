// What `strata plan`, `preflight` and `provision` share: the image to route
// against, the apt sources, the platform, the contract (a repository or a
// contract file), the facts cache under $STRATA_HOME/facts, and the
// reference printed for an image pinned by digest.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "cli/app.hpp"
#include "contract/image/facts_cache.hpp"
#include "contract/route/plan_request.hpp"

namespace strata::cli {

struct DecisionFlags {
  std::string repo;      // DIR (plan, provision) or --repo (preflight)
  std::string contract;  // --contract FILE (preflight)
  std::string image;     // --base (plan, provision) or --image (preflight)
  std::vector<std::string> sources;
  std::string platform;
  bool allow_unsigned = false;
  std::string index_max_age = kDefaultIndexMaxAge;
  std::vector<std::string> toolchain_sources;   // --toolchain-source TOOL=npm|npm:URL|URL
  std::vector<std::string> toolchain_keyrings;  // --toolchain-keyring TOOL=FILE (for the toolchain layer's build)
  bool no_toolchain_layer = false;              // --no-toolchain-layer: the task installs its own runtimes
};

// Adds --sources, --platform, --allow-unsigned-archive and --index-max-age.
void add_archive_options(CLI::App* cmd, DecisionFlags& f);

// Adds --toolchain-source TOOL=npm|URL, --toolchain-keyring TOOL=FILE (both
// repeatable) and --no-toolchain-layer.
void add_toolchain_options(CLI::App* cmd, DecisionFlags& f);

// --toolchain-keyring TOOL=FILE values by tool (each file must exist).
std::map<std::string, std::vector<std::filesystem::path>> toolchain_keyrings(const std::vector<std::string>& values);

// The request the flags name, with the image's store opened into `image`
// (which must outlive the request).
contract::route::PlanRequest plan_request(const GlobalOptions& g, const DecisionFlags& f, oci::OpenedStore& image);

contract::image::FactsCache facts_cache(const GlobalOptions& g);

// `given` (an image reference) pinned to `digest`: docker:// and local:
// references as NAME@DIGEST, layouts and archives as PATH:DIGEST.
std::string pinned_reference(const std::string& given, const std::string& digest);

}  // namespace strata::cli
