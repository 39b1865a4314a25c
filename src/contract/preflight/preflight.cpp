#include "contract/preflight/preflight.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace strata::contract::preflight {
namespace {

using route::Kind;
using route::Layer;
using route::Row;

std::string requirement(const Row& r) {
  switch (r.kind) {
    case Kind::kRuntime: return r.name + " " + r.need;
    case Kind::kToolchain: return "a C toolchain (" + r.need + ")";
    default: return r.name;
  }
}

void add_unique(std::vector<std::string>& v, const std::string& s) {
  if (std::find(v.begin(), v.end(), s) == v.end()) v.push_back(s);
}

// "a, b and c"
std::string listing(const std::vector<std::string>& v) {
  if (v.size() <= 1) return v.empty() ? "" : v.front();
  return str::join({v.begin(), v.end() - 1}, ", ") + " and " + v.back();
}

}  // namespace

const char* gap_kind_name(GapKind k) {
  switch (k) {
    case GapKind::kMissing: return "missing";
    case GapKind::kStale: return "stale-runtime";
    case GapKind::kUnrouted: return "unrouted";
    case GapKind::kEgress: return "egress";
  }
  return "missing";
}

Report check(const route::Plan& plan, const image::ImageFacts& image, const std::string& image_ref,
             const std::string& provision_hint, const EgressCheck* egress) {
  Report rep;
  rep.image = image_ref;
  rep.image_digest = image.manifest_digest;
  rep.root = plan.root;
  rep.contract_digest = plan.contract_digest;
  rep.egress_checked = egress != nullptr;
  // One fix for everything `strata provision` delivers: the overlay and the
  // task toolchains it installs as a layer (unless the task brings them).
  std::vector<std::string> provides;
  const bool layer_toolchains = plan.toolchain_layer;
  bool overlay_rows = false;
  for (const Row& r : plan.rows) {
    if (!r.needed) continue;
    overlay_rows = overlay_rows || r.layer == Layer::kOverlay;
    if (layer_toolchains && r.layer == Layer::kTaskToolchain && r.toolchain)
      add_unique(provides, "toolchain " + r.toolchain->tool + " " + r.toolchain->version + " from " +
                               (r.toolchain->source.empty() ? r.toolchain->url : r.toolchain->source));
  }
  if (overlay_rows && !plan.overlay_key.empty()) provides.insert(provides.begin(), "overlay " + plan.overlay_key.substr(0, 12));
  // A fix is a command that changes the result. Provision delivers an
  // overlay or toolchains; with neither to deliver — or when the image is
  // already the overlay the plan would build — running it changes nothing,
  // so the fix names what the image lacks instead of a loop.
  const auto built = image.annotations.find(std::string(kOverlayKeyAnnotation));
  const bool already_built =
      !plan.overlay_key.empty() && built != image.annotations.end() && built->second == plan.overlay_key;
  std::string overlay_fix = provision_hint + " (" + str::join(provides, ", ") + ")";
  if (already_built)
    overlay_fix = "this image is the overlay provision builds (" + plan.overlay_key.substr(0, 12) +
                  "): provision cannot add it; use a base image that has it";
  else if (provides.empty())
    overlay_fix = "use a base image that has it";
  std::vector<std::string> task_needs, overlay_needs, egress_needs, found, fixes;

  for (const Row& r : plan.rows) {
    if (!r.needed) continue;  // reported by the plan, not provisioned: not the image's to have
    const std::string req = requirement(r);
    switch (r.layer) {
      case Layer::kEgress:
        rep.egress_hosts.push_back(r.name);
        egress_needs.push_back(r.name);
        if (egress && !egress->allows(r.name)) {
          rep.gaps.push_back({GapKind::kEgress, r.name, "not allowed by " + egress->policy,
                              "allow read-only " + r.name + " in " + egress->policy});
          found.push_back(r.name + " not allowed by " + egress->policy);
          add_unique(fixes, "allow " + r.name + " (GET/HEAD) in " + egress->policy);
        }
        break;
      case Layer::kBase:
        rep.satisfied.push_back(req + ": " + r.why);
        break;
      case Layer::kTaskToolchain:
        if (layer_toolchains) {
          // strata installs it as a layer of the image: until then, a gap
          // like an overlay row (a stale copy in the image is named).
          task_needs.push_back(req + " (task toolchain)");
          const bool stale = r.kind == Kind::kRuntime && !r.shadow.empty();
          const std::string missing = stale ? r.shadow : "no " + req;
          rep.gaps.push_back({stale ? GapKind::kStale : GapKind::kMissing, req, missing, overlay_fix});
          add_unique(found, stale ? "a stale " + r.name + ": " + r.shadow : missing);
          add_unique(fixes, "run: " + overlay_fix);
          break;
        }
        [[fallthrough]];
      case Layer::kProjectBootstrap: {
        rep.task_time.push_back(req + ": " + route::layer_name(r.layer) + " — " + r.why);
        task_needs.push_back(req + " (" + (r.layer == Layer::kTaskToolchain ? "task toolchain" : "project bootstrap") +
                             ")");
        if (!r.shadow.empty()) {
          std::string fix = "use an image whose " + r.name + " satisfies " + r.need +
                            ", or put the task toolchain first on PATH";
          rep.gaps.push_back({GapKind::kStale, req, r.shadow, fix});
          found.push_back("a stale " + r.name + ": " + r.shadow);
          add_unique(fixes, fix);
        }
        break;
      }
      case Layer::kOverlay: {
        add_unique(overlay_needs, r.kind == Kind::kToolchain ? "a C toolchain" : req);
        std::vector<std::string> missing;
        if (r.kind == Kind::kToolchain) {
          for (const auto& c : r.commands)
            if (!image.command(c)) missing.push_back("no " + c);
        } else if (r.kind == Kind::kRuntime && !r.shadow.empty()) {
          missing.push_back(r.shadow);
        } else {
          missing.push_back("no " + req);
        }
        rep.gaps.push_back({GapKind::kMissing, req, str::join(missing, ", "), overlay_fix});
        for (const auto& m : missing) add_unique(found, m);
        add_unique(fixes, "run: " + overlay_fix);
        break;
      }
      case Layer::kUnrouted: {
        rep.gaps.push_back({GapKind::kUnrouted, req, r.why, "use a base image that has " + req});
        found.push_back("no " + req + " (" + r.why + ")");
        add_unique(fixes, "use a base image that has " + req);
        break;
      }
    }
  }
  if (rep.ok()) return rep;
  std::vector<std::string> needs = task_needs;
  if (!overlay_needs.empty())
    needs.push_back(listing(overlay_needs) +
                    (plan.overlay_key.empty() ? " (overlay)" : " (overlay " + plan.overlay_key.substr(0, 12) + ")"));
  if (!egress_needs.empty()) needs.push_back("egress " + str::join(egress_needs, ", "));
  rep.message = (plan.root.empty() ? std::string("the contract") : plan.root) + " needs " + str::join(needs, ", ") +
                "; image " + image_ref + " has " + str::join(found, ", ") + " — " + str::join(fixes, "; ");
  return rep;
}

}  // namespace strata::contract::preflight
