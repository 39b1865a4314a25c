// The router: a contract, the facts of a base image and the archive's
// candidates become a plan (plan.hpp), one row per requirement — each
// runtime floor, the native-build toolchain when a compile is planned, each
// build and run library, each required command, each egress host — with the
// cheapest layer that satisfies it and why:
//   base (the image has it: "dpkg libpq-dev 15.3-0", "ENV NODE_VERSION=22.11.0")
//   → project-bootstrap (the project's package manager installs it)
//   → overlay (an archive candidate satisfies it: python3.11 for python >=3.11)
//   → task-toolchain (a pinned release the base and the archive cannot give)
//   → unrouted.
// A package that downloads a prebuilt or compiles is routed by egress: when
// every download host is declared (.mac/project.yaml) the download is used
// and no build libraries are needed; otherwise its compile needs go to the
// overlay, and the plan records the choice. When a runtime goes to a task
// toolchain, the rows that ask the archive for that runtime's own pieces
// (python3-dev, python3-venv, npm, the python3/pip/node commands…) go with
// it: the toolchain carries them, and Debian's would be another version's.
// A library or host only the production image needs (Purpose::kRun) is a
// row that is reported, not provisioned (`needed: false`, with why), unless
// the request or the contract includes run needs.
// A runtime in the base below the
// floor is flagged on its row (`shadow`): on PATH it shadows the task
// toolchain. Pure: nothing is read or fetched; the overlay key is the
// caller's (plan_request.hpp).
#pragma once

#include <map>
#include <string>

#include "contract/model/contract.hpp"
#include "contract/image/image_facts.hpp"
#include "contract/route/candidates.hpp"
#include "contract/route/plan.hpp"

namespace strata::contract::route {

struct RouteInput {
  const Contract& contract;
  const image::ImageFacts& base;
  const Candidates& archive;
  std::string base_ref;  // as given, for the plan and its messages
  // tool → "npm", "npm:URL" or a mirror's base URL (toolchain_source in
  // tools.hpp); a tool not named downloads from its official site. A value
  // toolchain_source refuses is the official site and a warning (the
  // request, plan_request.hpp, refuses it before routing).
  std::map<std::string, std::string> toolchain_sources{};
  bool toolchain_layer = true;  // Plan::toolchain_layer
  // Provision what only the production image needs (Purpose::kRun) too;
  // the contract's own `include: [run]` says the same.
  bool include_run = false;
};

Plan route(const RouteInput& in);

}  // namespace strata::contract::route
