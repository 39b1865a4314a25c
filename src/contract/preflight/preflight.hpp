// Pre-flight: whether an image satisfies a contract, decided before any work
// starts, with every gap in one actionable message (as container-structure-
// test and goss report all failures of a run at once). The contract is
// routed against the image itself (route/plan_request.hpp replan): what the
// plan gives to the image — runtime floors, the C toolchain when a compile
// is planned, build and run libraries, required commands — must be there;
// a runtime below its floor is a stale image even when a task toolchain
// would bring a newer one (it shadows it on PATH); a row routed to
// task-toolchain is a gap like an overlay row — `strata provision` installs
// the toolchain as a layer, and the fix names it ("toolchain node 20.18.0
// from https://nodejs.org/dist") — unless the plan says the task installs
// its own runtimes (Plan::toolchain_layer false, `--no-toolchain-layer`):
// then it is "provided at task time", as a project-bootstrap row always is;
// with an egress check, every needed host must be allowed.
// Pure: the facts and the plan come in, the report goes out.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/image/image_facts.hpp"
#include "contract/route/plan.hpp"

namespace strata::contract::preflight {

// The manifest annotation an overlay carries its cache key in (the layer
// room's kAnnotationKey, which this room may not include; a test keeps the
// two equal): an image that is already the overlay a plan would build.
inline constexpr std::string_view kOverlayKeyAnnotation = "dev.strata.overlay.key";

enum class GapKind { kMissing, kStale, kUnrouted, kEgress };
const char* gap_kind_name(GapKind k);  // missing, stale-runtime, unrouted, egress

struct Gap {
  GapKind kind = GapKind::kMissing;
  std::string requirement;  // "node >=22.0.0", "cc", "libpq-dev", "nodejs.org"
  std::string found;        // "no cc", "node 18.0.0 (ENV NODE_VERSION=18.0.0)"
  std::string fix;
};

struct EgressCheck {
  std::string policy;                                   // the policy file, for messages
  std::function<bool(std::string_view host)> allows;    // whether a read-only client may reach host:443
};

struct Report {
  std::string image;         // as given
  std::string image_digest;  // its platform manifest
  std::string root;          // the repository the contract describes
  std::string contract_digest;
  std::vector<Gap> gaps;
  std::vector<std::string> satisfied;     // "node >=22.0.0: ENV NODE_VERSION=22.11.0"
  std::vector<std::string> task_time;     // "node >=22.0.0: task-toolchain node 22.0.0 from …"
  std::vector<std::string> egress_hosts;  // the hosts the repo needs (read-only)
  bool egress_checked = false;
  std::string message;  // one line: every gap and the fix; "" when ok
  bool ok() const { return gaps.empty(); }
};

// `plan` is the contract routed against `image` (whose facts those are).
// `provision_hint` is the command that fixes overlay gaps (e.g. "strata
// provision DIR --base REF"); `overlay_key` the key the overlay would have.
Report check(const route::Plan& plan, const image::ImageFacts& image, const std::string& image_ref,
             const std::string& provision_hint, const EgressCheck* egress = nullptr);

}  // namespace strata::contract::preflight
