#include "layer/build/build.hpp"

#include "layer/build/cached_overlay.hpp"
#include "layer/build/overlay_index.hpp"
#include "layer/build/overlay_use.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace {

// Adds `tag` (when given and not the key's own) to the manifest `root`.
Result<void> tag_result(oci::Store& dest, const oci::Descriptor& root, const std::optional<std::string>& tag,
                        const std::string& key_tag) {
  if (!tag || *tag == key_tag) return {};
  STRATA_TRY(auto raw, dest.get_manifest(root.digest.str()));
  return dest.put_manifest(raw, *tag);
}

// The result is used now: its last-use record says so. A store the builder
// may read but not write (a pull-only cache) loses only the record.
void note_use(const BuildRequest& r, const std::string& key_tag, const oci::Descriptor& root, const BuildContext& ctx,
              BuildObserver& observer) {
  if (auto wrote = record_use(*r.dest, key_tag, root, r.plan.spec.base, ctx.clock, r.use_refresh); !wrote) {
    observer.warning("the last use of " + key_tag + " is not recorded (" + wrote.error().message() +
                     "); strata cache gc may evict it early");
  }
}

}  // namespace


Result<BuildResult> build(const BuildRequest& r, BuildContext& ctx) {
  const OverlayPlan& plan = r.plan;
  if (!r.dest) return fail(ErrorCode::kInvalidArgument, "build: no destination store");
  if (!plan.spec.scratch() && !plan.spec.base_store) {
    return fail(ErrorCode::kInvalidArgument, "--base " + plan.spec.base + ": no store holds it");
  }
  if (!plan.locks.empty() && plan.locks.size() != plan.platforms.size()) {
    return fail(ErrorCode::kInvalidArgument, "--lock: one lock per platform built");
  }
  BuildObserver silent;
  BuildObserver& observer = ctx.observer ? *ctx.observer : silent;
  BuildResult out;
  out.key = plan.key;
  const std::string key_tag = plan.key.tag();

  // A hit: tag it, record the use, done.
  auto hit = [&](const oci::Descriptor& found) -> Result<BuildResult> {
    STRATA_TRY_VOID(tag_result(*r.dest, found, r.dest_tag, key_tag));
    note_use(r, key_tag, found, ctx, observer);
    observer.cache_hit(key_tag, found);
    out.cached = true;
    out.root = found;
    return out;
  };
  CachedOverlay cached = find_cached_overlay(*r.dest, key_tag, r.max_age, ctx.clock);
  if (cached.found) return hit(*cached.found);
  // A miss: one build per key on this machine. A process that finds the key
  // being built waits for it (the lock says so on stderr), then looks again.
  std::optional<fs::FileLock> key_lock;
  if (!ctx.home.empty()) {
    STRATA_TRY(auto taken, fs::FileLock::acquire(ctx.home / "locks" / (key_tag + ".lock")));
    key_lock.emplace(std::move(taken));
    cached = find_cached_overlay(*r.dest, key_tag, r.max_age, ctx.clock);
    if (cached.found) return hit(*cached.found);
  }
  // The home's lease, while the build reads and writes debs/, fragments/
  // and indexes/: `strata cache gc` leaves them alone meanwhile.
  std::optional<fs::FileLock> home_lease;
  if (!ctx.home.empty()) {
    STRATA_TRY(home_lease, fs::FileLock::acquire_shared(fs::home_lease_path(ctx.home)));
  }
  if (cached.expired_date) observer.cache_expired(key_tag, *cached.expired_date);

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
    note_use(r, key_tag, out.root, ctx, observer);
    return out;
  }
  // Built from locks: annotated with the request key they were resolved for,
  // so the index is the resolving build's, byte for byte.
  oci::RawManifest index = overlay_index(out.platforms, plan.index_key.value_or(plan.key));
  STRATA_TRY_VOID(r.dest->put_manifest(index, key_tag));
  if (r.dest_tag && *r.dest_tag != key_tag) STRATA_TRY_VOID(r.dest->put_manifest(index, *r.dest_tag));
  out.root = index.descriptor;
  note_use(r, key_tag, out.root, ctx, observer);
  return out;
}

}  // namespace strata::layer
