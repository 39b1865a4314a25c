#include "contract/route/plan_request.hpp"

#include "contract/route/router.hpp"
#include "contract/route/tools.hpp"
#include "contract/scan/scan.hpp"
#include "layer/apt/resolve_request.hpp"

namespace strata::contract::route {

Result<PlannedRepo> plan_repository(const PlanRequest& r, PlanContext& ctx) {
  if (!r.base_store) return fail(ErrorCode::kInvalidArgument, "plan: no base image store");
  for (const auto& [tool, value] : r.toolchain_sources) {
    if (auto s = toolchain_source(tool, value); !s)
      return fail(ErrorCode::kInvalidArgument, "toolchain source " + tool + "=" + value + ": " + s.error().message());
  }
  PlannedRepo out;
  out.toolchain_sources = r.toolchain_sources;
  out.toolchain_layer = r.toolchain_layer;
  out.include_run = r.include_run;
  if (r.contract) {
    out.contract = *r.contract;
  } else {
    STRATA_TRY(out.contract, scan_repository(r.repo));
  }
  oci::Platform platform = r.platform.architecture.empty() ? oci::host_platform() : r.platform;
  out.base_ref = r.base_ref;
  out.base_name = r.base;
  if (r.base == layer::kScratchBase) {
    // The image `strata build --base scratch` makes, by its key: honest facts.
    layer::BuildContext bc{.http = ctx.http, .clock = ctx.clock, .home = ctx.home, .jobs = ctx.jobs,
                           .base_fs = ctx.base_fs, .observer = ctx.observer, .offline = r.offline,
                           .index_max_age = r.index_max_age};
    STRATA_TRY(auto scratch, layer::scratch_image({.store = r.base_store, .sources = r.sources, .platform = platform,
                                                   .variant = r.variant, .allow_unsigned = r.allow_unsigned},
                                                  bc));
    out.base_ref = scratch.manifest.digest.str();
    out.base_name = std::string(layer::kScratchBase) + "@" + out.base_ref;
  }
  STRATA_TRY(out.base, with_context(image::read_image_facts(*r.base_store, out.base_ref, platform, ctx.facts),
                                    "reading the base " + r.base));
  STRATA_TRY(std::string arch, layer::debian_arch(platform));
  STRATA_TRY(auto sources, layer::load_sources(r.sources));
  layer::ArchiveOptions ao;
  ao.home = ctx.home;
  ao.arch = arch;
  ao.clock = &ctx.clock;
  ao.allow_unsigned = r.allow_unsigned;
  ao.index_max_age = r.index_max_age;
  ao.offline = r.offline;
  ao.decode_packages = false;  // the router asks about a few names (Candidates reads them by name)
  STRATA_TRY(auto archive, layer::load_archive(ctx.http, sources, ao));
  out.archive = Candidates(archive, arch);

  out.plan = route({out.contract, out.base, out.archive, r.base, r.toolchain_sources, r.toolchain_layer, r.include_run});
  out.plan.warnings.insert(out.plan.warnings.end(), archive.warnings.begin(), archive.warnings.end());
  if (out.plan.needs_overlay()) {
    layer::OverlaySpec spec;
    spec.base = out.base_name;
    spec.base_store = r.base_store;
    spec.base_ref = out.base_ref;
    spec.packages = out.plan.overlay_packages;
    spec.sources = r.sources;
    spec.platforms = {platform};
    spec.allow_unsigned = r.allow_unsigned;
    STRATA_TRY(auto overlay, layer::plan_overlay(std::move(spec)));
    out.plan.overlay_key = overlay.key.hex;
    out.overlay = std::move(overlay);
  }
  return out;
}

Plan replan(const PlannedRepo& planned, const image::ImageFacts& image, const std::string& image_ref) {
  return route({planned.contract, image, planned.archive, image_ref, planned.toolchain_sources, planned.toolchain_layer,
                planned.include_run});
}

}  // namespace strata::contract::route
