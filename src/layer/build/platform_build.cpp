#include "layer/build/platform_build.hpp"

#include "layer/build/build_documents.hpp"

#include <set>

#include "layer/apt/lock_mirror.hpp"
#include "layer/apt/resolve_request.hpp"
#include "layer/build/build_observer.hpp"
#include "layer/build/platform_lock.hpp"
#include "layer/sbom/image_sbom.hpp"
#include "layer/scratch/scratch_base.hpp"
#include "layer/scratch/scratch_effects.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

// The package names of requests (NAME, NAME:ARCH, NAME=VERSION): what the
// dpkg database marks as manually installed.
std::set<std::string> requested_names(const std::vector<std::string>& requests) {
  std::set<std::string> out;
  for (const auto& r : requests) {
    std::string n = r.substr(0, r.find('='));
    out.insert(n.substr(0, n.find(':')));
  }
  return out;
}

std::string packages_annotation(const Lock& lock) {
  std::vector<std::string> v;
  for (const auto& p : lock.packages) v.push_back(p.name + "=" + p.version + ":" + p.architecture);
  return str::join(v, ",");
}

// The overlay builder's options for one platform's lock.
Result<OverlayOptions> overlay_options(const BuildRequest& r, const oci::Platform& p, const Lock& lock,
                                       const OverlayKey& key, const BuildContext& ctx) {
  const OverlayPlan& plan = r.plan;
  OverlayOptions o;
  o.home = ctx.home;
  o.compression = plan.spec.compression;
  STRATA_TRY(o.debian_arch, debian_arch(p));
  std::int64_t snapshot = archive_date(lock);
  o.epoch = plan.spec.epoch.value_or(snapshot);
  o.requested = requested_names(lock.request);
  o.jobs = ctx.jobs;
  o.annotations[std::string(kAnnotationKey)] = key.hex;
  // The lock as strata writes it, with the base by digest only: the same
  // resolution gives the same annotation however the base was spelled.
  Lock canonical = lock;
  canonical.base_reference.clear();
  o.annotations[std::string(kAnnotationLockDigest)] = "sha256:" + sha256_hex(write_lock(canonical));
  o.annotations[std::string(kAnnotationArchiveDate)] = std::to_string(snapshot);
  o.annotations[std::string(kAnnotationPackages)] = packages_annotation(lock);
  o.tag = key.tag();
  o.created_by = "strata build " + str::join(lock.request, " ");
  if (plan.spec.scratch()) {
    ScratchEffectsInput in;
    for (const auto& lp : lock.packages) in.debs[lp.name] = deb_cache_path(ctx.home, lp.sha256);
    in.sources = lock.sources;
    in.debian_arch = o.debian_arch;
    in.epoch = o.epoch;
    o.extra_effects = [in](const OverlayView& view, std::vector<std::string>& unreproduced) {
      return scratch_effects(view, in, unreproduced);
    };
    o.extra_effects_name = "scratch root";
    o.created_by = "strata build --base scratch --variant " + std::string(scratch_variant_name(plan.spec.variant)) +
                   " " + str::join(plan.spec.packages, " ");
  }
  return o;
}

// What the .debs are fetched by: the lock, re-pointed at the --sources
// given with --lock (an internal mirror; lock_mirror.hpp). The lock itself,
// its annotation and the key stay as written.
Result<Lock> fetch_lock(const BuildRequest& r, const Lock& lock) {
  const OverlaySpec& spec = r.plan.spec;
  if (r.plan.locks.empty() || spec.sources.empty()) return lock;
  STRATA_TRY(auto mirrors, load_sources(spec.sources));
  return repoint_lock(lock, mirrors);
}

}  // namespace

std::filesystem::path lock_out_path(const std::filesystem::path& lock_out, const oci::Platform& p, bool several) {
  if (!several) return lock_out;
  return lock_out.string() + "." + p.os + "-" + p.architecture + (p.variant.empty() ? "" : "-" + p.variant);
}

Result<PlatformBuild> build_platform(const BuildRequest& r, const oci::Platform& p, BuildContext& ctx,
                                     BuildObserver& observer) {
  const OverlaySpec& spec = r.plan.spec;
  // A destination that keeps referrers gets the image's SBOM, made from the
  // base's filesystem (with what an SBOM reads: one cached read per base)
  // and what the build wrote, not from the image read back.
  const bool documents = r.attestations && r.dest->keeps_referrers();
  BaseImage base;
  if (spec.scratch()) {
    STRATA_TRY(base, scratch_base(p));
  } else {
    auto needs = documents ? oci::combine_needs(overlay_base_needs(), sbom::image_sbom_needs()) : overlay_base_needs();
    STRATA_TRY(base, load_base_image(*spec.base_store, spec.base_ref, p, std::move(needs), ctx.base_fs));
  }
  STRATA_TRY(auto installed, base_packages(base));
  PlatformBuild b;
  b.platform = p;
  if (const Lock* given = r.plan.lock_for(p)) {
    b.lock = *given;
  } else if (!r.plan.locks.empty()) {
    return fail(ErrorCode::kInvalidArgument, "no --lock is for " + p.str());
  } else {
    STRATA_TRY(auto resolved, resolve_platform_lock(spec, base, std::move(installed), p, ctx));
    for (const auto& w : resolved.warnings) observer.warning(w);
    b.lock = std::move(resolved.lock);
  }
  observer.resolved(p, b.lock);
  if (!r.lock_out.empty()) {
    STRATA_TRY_VOID(fs::write_file_atomic(lock_out_path(r.lock_out, p, r.plan.platforms.size() > 1), write_lock(b.lock)));
  }

  FetchOptions fo;
  fo.home = ctx.home;
  fo.jobs = ctx.jobs;
  fo.clock = &ctx.clock;
  fo.offline = ctx.offline;
  STRATA_TRY(auto fetch_from, fetch_lock(r, b.lock));
  STRATA_TRY(b.fetch, fetch_debs(ctx.http, fetch_from, fo));
  observer.fetched(p, b.fetch);

  b.key = content_key(spec, b.lock, p, spec.scratch() ? scratch_base_identity(spec) : base.descriptor.digest.str());
  STRATA_TRY(OverlayOptions o, overlay_options(r, p, b.lock, b.key, ctx));
  if (documents) o.result_fs = sbom::image_sbom_needs();
  std::vector<OverlayDeb> debs;
  for (const auto& lp : b.lock.packages) {
    debs.push_back({lp.name, lp.version, lp.architecture, lp.sha256, deb_cache_path(ctx.home, lp.sha256)});
  }
  // A scratch build has no base store: its base has no blobs to copy.
  oci::Store& base_blobs = spec.scratch() ? *r.dest : *spec.base_store;
  STRATA_TRY(b.overlay, build_overlay(std::move(base), base_blobs, debs, o, *r.dest));
  for (const auto& n : b.overlay.notes) observer.note(n);
  for (const auto& w : b.overlay.warnings) observer.warning("the base image: " + w);
  if (!r.attestations) return b;
  // The image is built and whole: documents that cannot be attached (a
  // registry that refuses OCI 1.1 artifacts, a copyright file over the
  // bounds) are a warning on it, not a failed build.
  if (auto attached = attach_build_documents(r, b, observer); !attached)
    observer.warning("the SBOM and provenance were not attached to " + b.overlay.manifest.digest.str() + ": " +
                     attached.error().message());
  return b;
}

}  // namespace strata::layer
