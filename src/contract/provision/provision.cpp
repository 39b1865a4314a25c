#include "contract/provision/provision.hpp"

#include "layer/sbom/image_attestations.hpp"
#include "oci/copy.hpp"
#include "oci/manifest.hpp"
#include "util/sha.hpp"

namespace strata::contract::provision {
namespace {

// The platform manifest of `ref` in `store` (an index narrowed to `platform`).
Result<oci::Descriptor> platform_manifest(oci::Store& store, const std::string& ref, const oci::Platform& platform) {
  STRATA_TRY(oci::RawManifest raw, store.get_manifest(ref));
  STRATA_TRY(oci::ParsedManifest parsed, oci::parse_manifest(raw.bytes, raw.descriptor.media_type, store.describe()));
  if (auto* idx = std::get_if<oci::ImageIndex>(&parsed)) {
    auto children = oci::select_platform(*idx, platform);
    if (children.empty()) {
      return fail(ErrorCode::kNotFound, store.describe() + "@" + ref + " has no manifest for " + platform.str());
    }
    return children.front();
  }
  return raw.descriptor;
}

}  // namespace

Result<ProvisionResult> provision(const ProvisionRequest& r, ProvisionContext& ctx) {
  route::PlanContext pc{.http = ctx.http, .clock = ctx.clock, .home = ctx.home, .facts = ctx.facts,
                        .jobs = ctx.jobs, .base_fs = ctx.base_fs,
                        .observer = ctx.base_observer ? ctx.base_observer : ctx.observer};
  ProvisionResult out;
  STRATA_TRY(out.planned, route::plan_repository(r.plan, pc));
  const route::Plan& plan = out.planned.plan;
  const std::vector<route::TaskToolchain> toolchains =
      r.toolchains.enabled ? deliverable_toolchains(plan) : std::vector<route::TaskToolchain>{};
  if (!out.planned.overlay && toolchains.empty()) {
    out.digest = out.planned.base.manifest_digest;
    out.cached = true;
    out.image_plan = plan;
    out.preflight = preflight::check(plan, out.planned.base, r.plan.base, r.provision_hint);
    return out;
  }
  if (!r.open_dest) {
    return fail(ErrorCode::kInvalidArgument, "provision: the plan needs an image built but no destination was given");
  }
  STRATA_TRY(oci::Store* dest, r.open_dest());
  oci::Platform platform = out.planned.base.platform;
  std::string lower;  // what the toolchains go on: the overlay, or the base copied into dest
  if (out.planned.overlay) {
    platform = out.planned.overlay->platforms.front();
    layer::BuildRequest build{.plan = *out.planned.overlay, .dest = dest,
                              .dest_tag = toolchains.empty() ? r.dest_tag : std::nullopt};
    layer::BuildContext bc{.http = ctx.http, .clock = ctx.clock, .home = ctx.home, .jobs = ctx.jobs,
                           .base_fs = ctx.base_fs, .observer = ctx.observer, .offline = r.plan.offline,
                           .index_max_age = r.plan.index_max_age};
    STRATA_TRY(auto built, layer::build(build, bc));
    out.digest = built.root.digest.str();
    out.tag = r.dest_tag ? *r.dest_tag : built.key.tag();
    out.cached = built.cached;
    out.build = std::move(built);
    lower = out.digest;
  } else {
    oci::CopySession session;
    oci::CopyOptions copy_options;
    copy_options.platform = platform;
    STRATA_TRY(auto copied, with_context(session.copy(*r.plan.base_store, out.planned.base.manifest_digest, *dest,
                                                      std::nullopt, copy_options),
                                         "copying the base " + r.plan.base + " to " + dest->describe()));
    lower = copied.root.digest.str();
    out.cached = true;
  }
  if (!toolchains.empty()) {
    STRATA_TRY(oci::Descriptor lower_manifest, platform_manifest(*dest, lower, platform));
    // The result is named by what it is made of: the lower image and each toolchain's key.
    std::optional<std::string> tag = r.dest_tag;
    STRATA_TRY(Stacked stacked, stack_toolchains(*dest, lower_manifest, toolchains, platform, r.toolchains, ctx.http,
                                                 ctx.home, std::nullopt));
    std::string name = lower_manifest.digest.str();
    for (const auto& t : stacked.toolchains) {
      name += "\n" + t.key;
      out.cached = out.cached && t.cached;
    }
    // A root the layout keeps (and gc sees): provision-<sha256 of what it stacks>.
    STRATA_TRY(oci::RawManifest raw, dest->get_manifest(stacked.manifest.digest.str()));
    const std::string provision_tag = "provision-" + sha256_hex(name);
    STRATA_TRY_VOID(dest->put_manifest(raw, provision_tag));
    if (tag) STRATA_TRY_VOID(dest->put_manifest(raw, *tag));
    out.tag = tag ? *tag : provision_tag;
    out.digest = stacked.manifest.digest.str();
    // The image provision returns carries its SBOMs and provenance as the
    // overlay does; one that cannot keeps its image and says why.
    if (!dest->keeps_referrers()) {
      if (ctx.observer)
        ctx.observer->note(dest->describe() + " keeps no referrers: the SBOM and provenance are not attached");
    } else {
      layer::sbom::ImageAttestations a;
      a.image = stacked.manifest;
      a.provenance = toolchain_provenance(lower_manifest, stacked, platform);
      if (auto attached = layer::sbom::attach_image_attestations(*dest, a); !attached && ctx.observer)
        ctx.observer->warning("the SBOM and provenance were not attached to " + out.digest + ": " +
                              attached.error().message());
    }
    out.toolchains = std::move(stacked.toolchains);
  }
  STRATA_TRY(auto facts, with_context(image::read_image_facts(*dest, out.digest, platform, ctx.facts),
                                      "reading the provisioned image " + out.digest));
  const std::string where = dest->describe() + "@" + out.digest;
  out.image_plan = route::replan(out.planned, facts, where);
  out.preflight = preflight::check(out.image_plan, facts, where, r.provision_hint);
  return out;
}

}  // namespace strata::contract::provision
