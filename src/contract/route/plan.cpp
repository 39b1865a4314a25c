#include "contract/route/plan.hpp"

namespace strata::contract::route {

const char* layer_name(Layer l) {
  switch (l) {
    case Layer::kBase: return "base";
    case Layer::kProjectBootstrap: return "project-bootstrap";
    case Layer::kTaskToolchain: return "task-toolchain";
    case Layer::kOverlay: return "overlay";
    case Layer::kEgress: return "egress";
    case Layer::kUnrouted: return "unrouted";
  }
  return "unrouted";
}

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::kRuntime: return "runtime";
    case Kind::kToolchain: return "toolchain";
    case Kind::kBuildLib: return "build-lib";
    case Kind::kRunLib: return "run-lib";
    case Kind::kCommand: return "command";
    case Kind::kEgress: return "egress";
  }
  return "runtime";
}

}  // namespace strata::contract::route
