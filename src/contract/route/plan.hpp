// A plan: one row per requirement of a contract, with the layer that
// satisfies it, in this order of cost — the base image already has it; the
// project's own package manager provides it at task time
// (project-bootstrap); a pinned runtime installed rootless for the task
// (task-toolchain); Debian packages from the configured archive (overlay);
// a read-only host allowlist entry (egress). A requirement nothing can
// satisfy is `unrouted`. Plain values, built by route() (router.hpp) and
// written by plan_output.hpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "contract/model/contract.hpp"

namespace strata::contract::route {

enum class Layer { kBase, kProjectBootstrap, kTaskToolchain, kOverlay, kEgress, kUnrouted };
const char* layer_name(Layer l);  // base, project-bootstrap, task-toolchain, overlay, egress, unrouted

// What a row asks of the image or the network.
enum class Kind { kRuntime, kToolchain, kBuildLib, kRunLib, kCommand, kEgress };
const char* kind_name(Kind k);  // runtime, toolchain, build-lib, run-lib, command, egress

// A runtime installed for the task: which version, from where, through which host.
struct TaskToolchain {
  std::string tool;
  std::string version;  // the floor: the lowest release admitted
  std::string range;    // every admitted version ("" = at least `version`)
  std::string url;      // the download for the platform ({release}: python-build-standalone's tag, the installer's)
  std::vector<std::string> hosts;  // what the download reaches (the source's hosts)
  // The base URL the download comes from: "https://nodejs.org/dist", a
  // mirror's URL, "npm:https://registry.npmjs.org" (node-linux-<arch> packages).
  std::string source{};
};

// Every field has a default, so designated initializers may name only some.
struct Row {
  Kind kind = Kind::kRuntime;
  std::string name;  // node, "native build", libpq-dev, git, nodejs.org
  std::string need;  // ">=22.0.0", "cc c++ make", "installed", "on PATH", "read-only"
  Layer layer = Layer::kUnrouted;
  std::string why{};                    // the evidence or the reason, for people
  std::vector<std::string> packages{};  // overlay: the Debian packages that satisfy it
  std::vector<std::string> commands{};  // toolchain: the commands checked on PATH
  std::vector<std::string> required_by{};
  std::optional<TaskToolchain> toolchain{};
  // A stale runtime in the image that would shadow what the row routes to
  // (e.g. node 18 on PATH when Node >= 22 comes from a task toolchain).
  std::string shadow{};
  // Which need the row serves (contract.hpp, Purpose): a run row is what
  // only the production image needs.
  Purpose purpose = Purpose::kBuild;
  // false: reported, not provisioned — a run need the request did not
  // include, an egress host the plan chose not to depend on; `why` ends
  // with the reason it is left out.
  bool needed = true;
};

// How a package that downloads a prebuilt or compiles was routed.
struct Decision {
  std::string package;  // npm:sharp
  std::string choice;   // download | compile; package (a PHP extension from Debian, php-ext:NAME)
  std::string why;
};

struct Plan {
  std::string contract_digest;
  std::string root;         // the repository the contract describes
  std::string base;         // the base image reference as given
  std::string base_digest;  // its platform manifest
  std::string platform;
  std::vector<Row> rows;    // by kind, then name
  std::vector<Decision> decisions;
  std::vector<std::string> overlay_packages;  // sorted, unique; empty: the base is enough
  std::string overlay_key;                    // the overlay's cache key (hex); "" without an overlay
  std::vector<std::string> warnings;          // conflicting floors, archive notes
  bool include_run = false;                   // run needs are provisioned too (Purpose::kRun)
  // Whether task-toolchain rows become a layer of the image (`strata
  // provision` installs them; pre-flight counts them as gaps until then), or
  // the task installs its own runtimes (`--no-toolchain-layer`: provided at
  // task time).
  bool toolchain_layer = true;

  bool needs_overlay() const { return !overlay_packages.empty(); }
};

}  // namespace strata::contract::route
