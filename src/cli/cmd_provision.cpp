// strata provision DIR --base REF [--dest REPO] [--sources FILE]… [--json]:
// scan, route, find-or-build the overlay, pre-flight it; the image reference
// to run is the last line of stdout. The library call is
// contract::provision::provision.
#include <iostream>

#include "cli/build_progress.hpp"
#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "contract/preflight/report_json.hpp"
#include "contract/provision/provision.hpp"
#include "contract/route/plan_output.hpp"
#include "oci/working_store.hpp"
#include "util/clock.hpp"

namespace strata::cli {
namespace {

// Where overlays go when --dest is not given: strata's local store.
constexpr const char* kDefaultDest = "local:strata/provisioned";

struct ProvisionArgs {
  DecisionFlags f;
  std::string dest;
};

void run_provision(const GlobalOptions& g, const ProvisionArgs& a, oci::http::Transport& http) {
  const DecisionFlags& f = a.f;
  oci::OpenedStore base;
  contract::provision::ProvisionRequest request;
  request.plan = plan_request(g, f, base);
  std::string dest_text = a.dest.empty() ? kDefaultDest : a.dest;
  auto dest_ref = check(oci::parse_image_ref(dest_text));
  std::optional<oci::WorkingStore> dest;  // opened only when an image is built
  request.open_dest = [&]() -> Result<oci::Store*> {
    STRATA_TRY(auto opened, oci::WorkingStore::open(dest_ref, g.open_options()));
    dest.emplace(std::move(opened));
    return &dest->store();
  };
  // A runtime's store gets its tag when the image is delivered (WorkingStore).
  if (!a.dest.empty() && !oci::is_runtime_store(dest_ref.transport)) request.dest_tag = oci::destination_tag(dest_ref);
  request.provision_hint = "strata provision " + f.repo + " --base <an image with what is missing>";
  request.toolchains.enabled = !f.no_toolchain_layer;
  request.toolchains.sources = request.plan.toolchain_sources;
  request.toolchains.keyrings = toolchain_keyrings(f.toolchain_keyrings);
  request.toolchains.offline = g.offline;

  DecisionCaches caches(g);
  BuildProgress progress(g, "");
  contract::provision::ProvisionContext ctx{.http = http, .clock = system_clock(), .home = g.open_options().home,
                                            .jobs = static_cast<unsigned>(g.jobs), .base_fs = &caches.base_fs,
                                            .observer = &progress, .facts = &caches.facts,
                                            .base_observer = &caches.scratch_progress};
  auto result = check(contract::provision::provision(request, ctx));
  if (dest) check(dest->deliver(check(oci::Digest::parse(result.digest))));
  const PrintedReference printed = result.build || !result.toolchains.empty()
                                       ? printed_reference(dest_text, result.digest, result.tag)
                                       : printed_reference(image_reference(f), result.digest, "");
  const std::string& reference = printed.reference;
  if (g.json) {
    nlohmann::ordered_json j;
    j["reference"] = reference;
    j["digest"] = result.digest;
    j["pinned"] = printed.pinned;
    j["overlay"] = result.build.has_value();
    j["toolchains"] = nlohmann::ordered_json::array();
    for (const auto& t : result.toolchains) {
      j["toolchains"].push_back({{"tool", t.release.tool}, {"release", t.release.version},
                                 {"source", t.release.source.describe()}, {"key", t.key},
                                 {"layer", t.layer.digest.str()}, {"cached", t.cached}, {"prefix", t.prefix}});
    }
    j["key"] = result.planned.plan.overlay_key.empty() ? nlohmann::ordered_json(nullptr)
                                                       : nlohmann::ordered_json(result.planned.plan.overlay_key);
    j["cached"] = result.cached;
    j["plan"] = contract::route::plan_to_json(result.planned.plan);
    j["preflight"] = contract::preflight::report_to_json(result.preflight);
    std::cout << oci::dump_json(j, 2) << "\n";
  } else {
    log_info(g, std::string(result.build ? (result.build->cached ? "overlay found by its key " : "overlay built, key ") +
                                               result.planned.plan.overlay_key
                            : result.toolchains.empty()
                                ? "no overlay needed: the base satisfies everything the image must carry"
                                : "no overlay needed: the base carries the toolchains"));
    for (const auto& t : result.toolchains) {
      log_info(g, "toolchain " + t.release.tool + " " + t.release.version + " from " + t.release.source.describe() +
                      (t.cached ? " (cached layer " : " (layer ") + t.layer.digest.str().substr(0, 19) + ", " +
                      t.release.archives.front().verified_by + ")");
    }
    // A layout's tag can move; the digest says which image this run gave.
    if (printed.pinned != reference) log_info(g, "image " + result.digest + " (pinned: " + printed.pinned + ")");
    std::cout << reference << "\n";
  }
  std::cout.flush();
  if (!result.preflight.ok()) throw Exit{kExitGaps, result.preflight.message};
}

}  // namespace

void register_provision(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto a = std::make_shared<ProvisionArgs>();
  auto* cmd = add_command(
      app, "provision",
      "The whole decision: scan, route, find or build the overlay, pre-flight it; prints the image reference to "
      "run as the last line of stdout",
      "  strata provision . --base docker://docker.io/library/debian:bookworm\n"
      "  strata provision ~/src/app --base local:debian:12 --dest oci:/srv/overlays --sources bookworm.sources\n"
      "  strata provision --repo . --base scratch --toolchain-source node=npm --dest local:app:dev\n"
      "  strata provision . --base containerd:debian:12 --dest containerd:app:dev --containerd-namespace k8s.io\n\n"
      "The base itself is the result when the plan needs no overlay. A second run with nothing changed finds\n"
      "the overlay by its key. --json adds the plan, key, cached and the pre-flight result. Exit 3 when the\n"
      "result still has gaps (a stale runtime in the base, something no layer provides).\n");
  add_repository(cmd, a->f);
  cmd->add_option("--base", a->f.image,
                  "Base image, or scratch: the image `strata build --base scratch` makes from the sources (kept in "
                  "local:strata/scratch)")
      ->required();
  cmd->add_option("--dest", a->dest, std::string("Where the overlay is looked up and written (default ") +
                                         kDefaultDest + ")");
  add_archive_options(cmd, a->f);
  add_toolchain_options(cmd, a->f);
  add_include_option(cmd, a->f);
  cmd->callback([&g, a, http] {
    repository_given(a->f);
    run_provision(g, *a, *http);
  });
}

}  // namespace strata::cli
