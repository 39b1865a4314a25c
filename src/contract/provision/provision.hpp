// The whole decision in one call: scan (or take) the contract, route it
// against the base, find or build the overlay through the build pipeline
// (layer::build; the cache key decides hit or miss), and pre-flight the
// image that comes back — the contract routed again against it. A runtime
// routed to a task toolchain is stacked on the result as a toolchain layer
// (toolchain_stack.hpp) unless the request disables it. When the plan needs
// no Debian packages and no toolchain the base itself is the result. A second
// call with nothing changed is a cache hit: the facts of the base and of the
// overlay come from the FactsCache by manifest digest, and the overlay from
// its key's tag in the destination.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "contract/image/facts_cache.hpp"
#include "contract/preflight/preflight.hpp"
#include "contract/provision/toolchain_stack.hpp"
#include "contract/route/plan_request.hpp"
#include "layer/build/build.hpp"

namespace strata::contract::provision {

struct ProvisionRequest {
  route::PlanRequest plan;
  // Where an overlay is looked up and written, opened only when the plan
  // needs one (a plan the base satisfies touches no destination). REQUIRED
  // then; the store must outlive the call.
  std::function<Result<oci::Store*>()> open_dest{};
  std::optional<std::string> dest_tag{};   // a tag to give the overlay besides its key's
  std::string provision_hint;              // the command pre-flight names as the fix
  // Task-toolchain rows become toolchain layers on the result (sources,
  // extra keys, offline); disabled: today's task-time install.
  ToolchainOptions toolchains{};
};

struct ProvisionContext {
  oci::http::Transport& http;
  Clock& clock;
  std::filesystem::path home;
  unsigned jobs = 4;
  const layer::BaseFsCache* base_fs = nullptr;
  layer::BuildObserver* observer = nullptr;       // the overlay's build
  const image::FactsCache* facts = nullptr;
  layer::BuildObserver* base_observer = nullptr;  // a scratch base built on the way (none: observer)
};

struct ProvisionResult {
  route::PlannedRepo planned;           // the contract routed against the base
  std::optional<layer::BuildResult> build;  // none: the base itself is the result
  std::vector<layer::toolchain::ToolchainLayer> toolchains;  // stacked on the base or the overlay
  std::string digest;                   // the image manifest to run
  // The tag the result carries in the destination: the one asked for, else
  // overlay-<key> (an overlay) or provision-<sha256> (toolchains stacked);
  // empty when the base itself is the result.
  std::string tag;
  bool cached = false;                  // the overlay was found by its key (always true for the base)
  route::Plan image_plan;               // the contract routed against the result
  preflight::Report preflight;          // of the result
};

Result<ProvisionResult> provision(const ProvisionRequest& request, ProvisionContext& ctx);

}  // namespace strata::contract::provision
