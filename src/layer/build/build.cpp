#include "layer/build/build.hpp"

#include "layer/build/cached_overlay.hpp"
#include "layer/build/overlay_index.hpp"

namespace strata::layer {

namespace {

// Adds `tag` (when given and not the key's own) to the manifest `root`.
Result<void> tag_result(oci::Store& dest, const oci::Descriptor& root, const std::optional<std::string>& tag,
                        const std::string& key_tag) {
  if (!tag || *tag == key_tag) return {};
  STRATA_TRY(auto raw, dest.get_manifest(root.digest.str()));
  return dest.put_manifest(raw, *tag);
}

}  // namespace

Result<BuildResult> build(const BuildRequest& r, BuildContext& ctx) {
  const OverlayPlan& plan = r.plan;
  if (!r.dest) return fail(ErrorCode::kInvalidArgument, "build: no destination store");
  if (!plan.spec.scratch() && !plan.spec.base_store) {
    return fail(ErrorCode::kInvalidArgument, "--base " + plan.spec.base + ": no store holds it");
  }
  if (plan.lock && plan.platforms.size() != 1) {
    return fail(ErrorCode::kInvalidArgument, "--lock builds the one platform of its lock");
  }
  BuildObserver silent;
  BuildObserver& observer = ctx.observer ? *ctx.observer : silent;
  BuildResult out;
  out.key = plan.key;
  const std::string key_tag = plan.key.tag();

  CachedOverlay cached = find_cached_overlay(*r.dest, key_tag, r.max_age, ctx.clock);
  if (cached.expired_date) observer.cache_expired(key_tag, *cached.expired_date);
  if (cached.found) {
    STRATA_TRY_VOID(tag_result(*r.dest, *cached.found, r.dest_tag, key_tag));
    observer.cache_hit(key_tag, *cached.found);
    out.cached = true;
    out.root = *cached.found;
    return out;
  }

  for (const auto& p : plan.platforms) {
    STRATA_TRY(PlatformBuild b, build_platform(r, p, ctx, observer));
    observer.platform_built(b);
    out.platforms.push_back(std::move(b));
  }
  if (out.platforms.size() == 1) {
    // Tagged with its content key already; a resolving build also answers
    // for its request key.
    out.root = out.platforms.front().overlay.manifest;
    const std::string content_tag = out.platforms.front().key.tag();
    STRATA_TRY_VOID(tag_result(*r.dest, out.root, key_tag, content_tag));
    STRATA_TRY_VOID(tag_result(*r.dest, out.root, r.dest_tag, content_tag));
    return out;
  }
  oci::RawManifest index = overlay_index(out.platforms, plan.key, plan.spec.base);
  STRATA_TRY_VOID(r.dest->put_manifest(index, key_tag));
  if (r.dest_tag && *r.dest_tag != key_tag) STRATA_TRY_VOID(r.dest->put_manifest(index, *r.dest_tag));
  out.root = index.descriptor;
  return out;
}

}  // namespace strata::layer
