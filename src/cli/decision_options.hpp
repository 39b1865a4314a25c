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
#include "cli/build_progress.hpp"
#include "contract/image/facts_cache.hpp"
#include "contract/route/plan_request.hpp"

namespace strata::cli {

// Where `--base scratch` (and `--image scratch`) is kept.
using contract::route::kScratchStore;

struct DecisionFlags {
  std::string repo;      // DIR (plan, provision) or --repo (preflight)
  std::string repo_option;  // --repo DIR (plan, provision: the same as DIR)
  std::string contract;  // --contract FILE (preflight)
  std::string image;     // --base (plan, provision) or --image (preflight)
  std::vector<std::string> sources;
  std::string variant;   // --variant essential|minbase, for --base scratch (empty: minbase)
  std::string platform;
  bool allow_unsigned = false;
  std::string index_max_age = kDefaultIndexMaxAge;
  std::vector<std::string> toolchain_sources;   // --toolchain-source TOOL=npm|npm:URL|URL
  std::vector<std::string> toolchain_keyrings;  // --toolchain-keyring TOOL=FILE (for the toolchain layer's build)
  bool no_toolchain_layer = false;              // --no-toolchain-layer: the task installs its own runtimes
  std::vector<std::string> include;             // --include run: needs beyond building and testing
};

// Adds the repository of plan and provision: DIR, or --repo DIR as
// preflight names it; repository_given() (in the callback) takes the one given.
void add_repository(CLI::App* cmd, DecisionFlags& f);
void repository_given(DecisionFlags& f);

// Adds --sources, --variant, --platform, --allow-unsigned-archive and --index-max-age.
void add_archive_options(CLI::App* cmd, DecisionFlags& f);

// Adds --toolchain-source TOOL=npm|URL, --toolchain-keyring TOOL=FILE (both
// repeatable) and --no-toolchain-layer.
void add_toolchain_options(CLI::App* cmd, DecisionFlags& f);

// Adds --include NEED (repeatable): `run` provisions what only the
// production image needs too (docs/contract.md, "Needs").
void add_include_option(CLI::App* cmd, DecisionFlags& f);

// --toolchain-keyring TOOL=FILE values by tool (each file must exist).
std::map<std::string, std::vector<std::filesystem::path>> toolchain_keyrings(const std::vector<std::string>& values);

// The request the flags name, with the image's store opened into `image`
// (which must outlive the request; for scratch, kScratchStore opened to write).
contract::route::PlanRequest plan_request(const GlobalOptions& g, const DecisionFlags& f, oci::OpenedStore& image);

contract::image::FactsCache facts_cache(const GlobalOptions& g);

// What a decision command hands the library besides the request: the facts
// and base-filesystem caches under $STRATA_HOME, and the progress of a
// scratch base built the first time (one summary line on stderr).
struct DecisionCaches {
  explicit DecisionCaches(const GlobalOptions& g);
  contract::route::PlanContext plan_context(const GlobalOptions& g, oci::http::Transport& http);

  contract::image::FactsCache facts;
  layer::BaseFsCache base_fs;
  BuildProgress scratch_progress;
};

// The image the flags route against as a reference to run or copy: the
// given one, or kScratchStore for scratch.
std::string image_reference(const DecisionFlags& f);

// How provision names the image `digest` it reached through `given` (an
// image reference), which carries it under `tag` ("" when it is the given
// image itself). `reference` is what skopeo, umoci and a runtime accept:
// docker:// and local: as NAME@DIGEST; a layout or archive by its tag,
// PATH:TAG (the tag in `given`, else `tag`), since their `PATH:DIGEST` names
// no image for skopeo or umoci. `pinned` is strata's pinned form of the same
// image (PATH:TAG@DIGEST), which strata reads and refuses to resolve to
// anything else.
struct PrintedReference {
  std::string reference;
  std::string pinned;
};
PrintedReference printed_reference(const std::string& given, const std::string& digest, const std::string& tag);

}  // namespace strata::cli
