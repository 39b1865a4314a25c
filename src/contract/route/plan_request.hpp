// `strata plan` as a library call: the contract (scanned from the
// repository, or given), the facts of the base image, the archive's
// candidates (the apt sources loaded as `strata resolve` loads them), the
// route, and — when the plan needs Debian packages — the overlay request
// and its cache key through layer::plan_overlay, the key `strata build`
// would look the overlay up by. Pre-flight and provision start here.
//
// The base `scratch` is the image `strata build --base scratch` makes (the
// variant's package set from the request's sources), found by its key in
// base_store or built there (layer/build/scratch_image.hpp); its facts are
// read like any base's, and the overlay goes on it.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "contract/model/contract.hpp"
#include "contract/image/facts_cache.hpp"
#include "contract/image/image_facts.hpp"
#include "contract/route/candidates.hpp"
#include "contract/route/plan.hpp"
#include "layer/build/overlay_plan.hpp"
#include "layer/build/scratch_image.hpp"
#include "oci/http/transport.hpp"
#include "oci/platform.hpp"
#include "oci/store.hpp"
#include "util/clock.hpp"

namespace strata::contract::route {

// Where the base scratch is kept: the image `strata build --base scratch
// --dest local:strata/scratch` makes, found there by its key.
inline constexpr const char* kScratchStore = "local:strata/scratch";

struct PlanRequest {
  std::filesystem::path repo;         // scanned when `contract` is empty
  std::optional<Contract> contract;   // a contract read from a file
  std::string base;                   // the base's reference as given, or layer::kScratchBase
  oci::Store* base_store = nullptr;   // REQUIRED: holds the base (scratch: where it is found or built)
  std::string base_ref;               // the base within base_store (tag or digest; may be empty; unused for scratch)
  layer::ScratchVariant variant = layer::ScratchVariant::kMinbase;  // the package set of a scratch base
  oci::Platform platform;             // empty architecture: this machine's
  std::vector<std::string> sources;   // apt sources files; empty: the host's
  bool allow_unsigned = false;        // accept sources marked Trusted: yes
  std::int64_t index_max_age = 0;     // layer::ArchiveOptions::index_max_age (for the overlay's build too)
  // tool → "npm", "npm:URL" or a mirror's base URL: where each task
  // toolchain is downloaded from (route/tools.hpp toolchain_source); a
  // value it refuses fails the request, naming it.
  std::map<std::string, std::string> toolchain_sources;
  bool toolchain_layer = true;        // false: the task installs its own runtimes (Plan::toolchain_layer)
  bool include_run = false;           // provision what only the production image needs too (RouteInput)
  // No network: the archive's remembered InRelease and cached indexes (and,
  // for a scratch base not yet built, cached .debs); what is missing is named.
  bool offline = false;
};

struct PlanContext {
  oci::http::Transport& http;  // to the apt archive
  Clock& clock;
  std::filesystem::path home;                 // $STRATA_HOME: index caches
  const image::FactsCache* facts = nullptr;   // none: every image is read from its layers
  // For a scratch base that is not built yet (layer::BuildContext's).
  unsigned jobs = 4;
  const layer::BaseFsCache* base_fs = nullptr;
  layer::BuildObserver* observer = nullptr;
};

struct PlannedRepo {
  Contract contract;
  image::ImageFacts base;
  std::string base_ref;   // the base within the request's base_store (scratch: its manifest digest)
  std::string base_name;  // the base as the overlay names it (scratch: "scratch@sha256:…")
  Candidates archive;
  Plan plan;
  std::optional<layer::OverlayPlan> overlay;  // when plan.needs_overlay()
  std::map<std::string, std::string> toolchain_sources;  // the request's, for replan
  bool toolchain_layer = true;
  bool include_run = false;
};

Result<PlannedRepo> plan_repository(const PlanRequest& request, PlanContext& ctx);

// Routes `contract` again against another image (the overlay built for it):
// what pre-flight checks.
Plan replan(const PlannedRepo& planned, const image::ImageFacts& image, const std::string& image_ref);

}  // namespace strata::contract::route
