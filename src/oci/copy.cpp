#include "oci/copy.hpp"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <set>
#include <thread>

#include "oci/media_types.hpp"
#include "util/fs.hpp"

namespace strata::oci {

struct InFlight {
  Store* dst = nullptr;
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  std::optional<Error> error;

  // Blocks until the transfer ends; true when it succeeded.
  bool wait() {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return done; });
    return !error;
  }
};

namespace {

struct Plan {
  std::vector<Descriptor> blobs;          // unique, every config and layer
  std::vector<RawManifest> manifests;     // post-order: children before parents
  std::set<Digest> seen;
};

// Worth another whole-blob attempt: the network failed, or the bytes did not
// verify after resuming from what an earlier attempt left (the writer has
// dropped those; a fresh start may succeed). A full disk, a local read error
// or a source whose bytes are wrong from the first byte fail the same way
// every time.
bool worth_retrying(const Error& e, std::uint64_t resumed_from) {
  return is_transient(e) || (e.is(ErrorCode::kFailedPrecondition) && resumed_from > 0);
}

// Copies a descriptor for writing: index.json annotations are not content.
Descriptor content_descriptor(Descriptor d) {
  d.annotations.clear();
  d.platform.reset();
  return d;
}

// put_manifest, with the observer told about a lock another process holds.
Result<void> put_manifest_told(Store& dst, const RawManifest& m, std::optional<std::string_view> tag,
                               const CopyOptions& o) {
  std::optional<fs::LockWaitListener> listening;
  if (o.observer) {
    listening.emplace([&](const std::filesystem::path& lock) { o.observer->waiting_for_lock(m.descriptor, lock); });
  }
  return dst.put_manifest(m, tag);
}

// Every manifest and blob under `root`, each read once.
Result<void> plan_manifest(Store& src, const RawManifest& root, Plan& plan) {
  // Depth first with an explicit stack, children before parents in
  // plan.manifests; at most kMaxIndexDepth indexes deep, each manifest read
  // once.
  struct Frame {
    RawManifest raw;
    std::vector<Descriptor> children;  // for indexes
    std::size_t next = 0;
  };
  std::vector<Frame> stack;
  // Reads what `raw` refers to: an index becomes a frame, a manifest's blobs
  // join the plan.
  auto visit = [&](RawManifest raw) -> Result<void> {
    if (!plan.seen.insert(raw.descriptor.digest).second) return {};
    STRATA_TRY(auto parsed, parse_manifest(raw.bytes, raw.descriptor.media_type,
                                           src.describe() + "@" + raw.descriptor.digest.str()));
    if (auto* idx = std::get_if<ImageIndex>(&parsed)) {
      if (stack.size() >= static_cast<std::size_t>(kMaxIndexDepth)) {
        return fail(ErrorCode::kInvalidArgument,
                    src.describe() + "@" + raw.descriptor.digest.str() + ": indexes nested more than " +
                        std::to_string(kMaxIndexDepth) + " levels deep (images need one or two); refusing to copy");
      }
      stack.push_back(Frame{std::move(raw), std::move(idx->manifests), 0});
      return {};
    }
    const auto& m = std::get<ImageManifest>(parsed);
    auto add = [&](const Descriptor& d) {
      if (plan.seen.insert(d.digest).second) plan.blobs.push_back(content_descriptor(d));
    };
    add(m.config);
    for (const auto& l : m.layers) {
      if (!l.urls.empty() && l.media_type == media::kDockerForeignLayerGzip) continue;  // never redistributed
      add(l);
    }
    plan.manifests.push_back(std::move(raw));
    return {};
  };
  STRATA_TRY_VOID(visit(root));
  while (!stack.empty()) {
    Frame& top = stack.back();
    if (top.next == top.children.size()) {
      plan.manifests.push_back(std::move(top.raw));
      stack.pop_back();
      continue;
    }
    const Descriptor child = top.children[top.next++];
    if (plan.seen.contains(child.digest)) continue;
    auto child_raw = src.get_manifest(child.digest.str());
    if (!child_raw) {
      // A sparse index (children elsewhere) cannot be copied faithfully.
      return fail(child_raw.error().context("copying index " + top.raw.descriptor.digest.str() + " child " +
                                            child.digest.str()));
    }
    child_raw->descriptor.media_type = child.media_type;
    const std::string parent = top.raw.descriptor.digest.str();  // `top` may move below
    auto visited = visit(std::move(*child_raw));
    if (!visited) return fail(visited.error().context("copying index " + parent + " child " + child.digest.str()));
  }
  return {};
}

// The manifest a copy of `src_ref` writes as its root: the reference's own,
// or one platform's manifest of an index (unless options.all).
Result<RawManifest> select_root(Store& src, std::string_view src_ref, const CopyOptions& o) {
  STRATA_TRY(auto root, src.get_manifest(src_ref));
  STRATA_TRY(auto parsed, parse_manifest(root.bytes, root.descriptor.media_type,
                                         src.describe() + (src_ref.empty() ? "" : "@" + std::string(src_ref))));
  if (auto* idx = std::get_if<ImageIndex>(&parsed); idx && !o.all) {
    Platform want = o.platform.value_or(host_platform());
    auto matches = select_platform(*idx, want);
    if (matches.empty()) {
      return fail(ErrorCode::kNotFound, src.describe() + " has no image for platform " + want.str() +
                                            " (it has: " + index_platforms(*idx) + "); pass --platform or --all");
    }
    STRATA_TRY(root, src.get_manifest(matches.front().digest.str()));
    root.descriptor.media_type = matches.front().media_type;
  }
  root.descriptor = content_descriptor(root.descriptor);
  return root;
}

// A destination pinned by digest receives exactly that content, or nothing.
Result<void> check_pin(const Descriptor& root, const CopyOptions& o) {
  if (!o.pin || o.pin->digest == root.digest) return {};
  return fail(ErrorCode::kFailedPrecondition,
              o.pin->reference + ": the image to copy is " + root.digest.str() + ", not the digest this destination "
              "names; nothing was copied. Name the destination by tag, or by " + root.digest.str());
}

}  // namespace

std::optional<DestinationPin> destination_pin(const ImageRef& ref) {
  if ((ref.transport != Transport::kDocker && ref.transport != Transport::kContainerd) || !ref.docker.digest) return std::nullopt;
  return DestinationPin{*ref.docker.digest, ref.original.empty() ? ref.str() : ref.original};
}

EstimateLedger::Way EstimateLedger::claim(const Descriptor& desc, Store& src, Store* dst, const std::string& dst_key) {
  // A registry mounts from the source repository itself when it can.
  if (dst && dst->can_mount_from(src)) return Way::kMount;
  std::lock_guard lock(mu_);
  auto& claimed = claimed_[desc.digest];
  for (const auto& [key, store] : claimed)
    if (key == dst_key) return Way::kCounted;
  for (const auto& [key, store] : claimed) {
    if (dst && store && dst->can_mount_from(*store)) {
      claimed.emplace_back(dst_key, dst);
      return Way::kMount;
    }
  }
  claimed.emplace_back(dst_key, dst);
  return Way::kCopy;
}

Result<CopyEstimate> estimate_copy(Store& src, std::string_view src_ref, Store* dst,
                                   std::optional<std::string_view> dst_tag, const CopyOptions& o,
                                   EstimateLedger* ledger, const std::string& dst_key) {
  CopyEstimate out;
  STRATA_TRY(auto root, select_root(src, src_ref, o));
  STRATA_TRY_VOID(check_pin(root.descriptor, o));
  out.root = root.descriptor;
  const std::string dst_ref = dst_tag ? std::string(*dst_tag) : root.descriptor.digest.str();
  if (dst) {
    if (auto existing = dst->resolve(dst_ref); existing && existing->digest == root.descriptor.digest) {
      out.already_present = true;
      return out;
    }
  }
  Plan plan;
  STRATA_TRY_VOID(plan_manifest(src, root, plan));
  out.blobs = plan.blobs.size();
  for (const auto& b : plan.blobs) {
    bool have = false;
    if (dst) {
      auto present = dst->has_blob(b);
      if (!present && !present.error().is(ErrorCode::kNotFound)) {
        return fail(present.error().context("checking " + dst->describe() + " for " + b.digest.str()));
      }
      have = present && *present;
    }
    if (have) continue;
    ++out.blobs_missing;
    const auto way = ledger ? ledger->claim(b, src, dst, dst_key) : EstimateLedger::Way::kCopy;
    if (way == EstimateLedger::Way::kMount) ++out.blobs_mounted;
    if (way != EstimateLedger::Way::kCopy) continue;
    out.bytes_missing += static_cast<std::uint64_t>(std::max<std::int64_t>(0, b.size));
  }
  return out;
}

Result<BlobOutcome> CopySession::copy_blob(Store& src, Store& dst, const Descriptor& desc, const CopyOptions& o,
                                           std::uint64_t& bytes) {
  // One transfer per (digest, destination) at a time across the session.
  const auto key = std::make_pair(desc.digest, static_cast<const Store*>(&dst));
  std::shared_ptr<InFlight> mine, failed;  // failed: another copy's transfer that did not land
  std::vector<std::shared_ptr<InFlight>> siblings;  // the same blob to destinations `dst` can mount from
  while (!mine) {
    std::shared_ptr<InFlight> theirs;
    {
      std::lock_guard lock(mu_);
      if (auto it = in_flight_.find(key); it != in_flight_.end() && it->second != failed) {
        theirs = it->second;
      } else {
        for (auto s = in_flight_.lower_bound(std::make_pair(desc.digest, static_cast<const Store*>(nullptr)));
             s != in_flight_.end() && s->first.first == desc.digest; ++s) {
          if (s->first != key && dst.can_mount_from(*s->second->dst)) siblings.push_back(s->second);
        }
        mine = std::make_shared<InFlight>();
        mine->dst = &dst;
        in_flight_.insert_or_assign(key, mine);
      }
    }
    if (!theirs) break;
    if (theirs->wait()) return BlobOutcome::kSkipped;
    // Its source failed (unreachable, corrupt): this copy has its own source, so it tries that.
    failed = std::move(theirs);
  }
  auto r = transfer_blob(src, dst, desc, o, bytes, siblings);
  {
    std::lock_guard lock(mine->mu);
    mine->done = true;
    if (!r) mine->error = r.error();
  }
  mine->cv.notify_all();
  std::lock_guard lock(mu_);
  if (auto it = in_flight_.find(key); it != in_flight_.end() && it->second == mine) in_flight_.erase(it);
  if (r) {
    auto& where = landed_[desc.digest];
    if (std::find(where.begin(), where.end(), &dst) == where.end()) where.push_back(&dst);
  }
  return r;
}

Result<BlobOutcome> CopySession::transfer_blob(Store& src, Store& dst, const Descriptor& desc, const CopyOptions& o,
                                               std::uint64_t& bytes,
                                               const std::vector<std::shared_ptr<InFlight>>& siblings) {
  // Another repository of the same registry is receiving it: wait, then mount.
  for (const auto& s : siblings) s->wait();
  auto present = dst.has_blob(desc);
  if (!present) return fail(present.error());
  if (*present) return BlobOutcome::kSkipped;
  if (o.link_blobs) {
    auto linked = dst.link_blob(desc, src);
    if (linked && *linked) return BlobOutcome::kMounted;
  }
  auto mounted = dst.mount_blob(desc, src);
  if (mounted && *mounted) return BlobOutcome::kMounted;
  std::vector<Store*> landed;
  {
    std::lock_guard lock(mu_);
    if (auto it = landed_.find(desc.digest); it != landed_.end()) landed = it->second;
  }
  for (Store* other : landed) {
    if (other == &dst || !dst.can_mount_from(*other)) continue;
    auto from_other = dst.mount_blob(desc, *other);
    if (from_other && *from_other) return BlobOutcome::kMounted;
  }

  std::optional<Error> last;
  const int attempts = std::max(1, o.blob_attempts);
  for (int attempt = 0; attempt < attempts; ++attempt) {
    std::optional<fs::LockWaitListener> listening;
    if (o.observer) {
      listening.emplace([&](const std::filesystem::path& lock) { o.observer->waiting_for_lock(desc, lock); });
    }
    auto writer = dst.blob_writer(desc);
    listening.reset();
    if (!writer) return fail(writer.error());
    if ((*writer)->present()) return BlobOutcome::kSkipped;  // another process committed it meanwhile
    std::uint64_t offset = (*writer)->offset();
    CountingSink counting(**writer, [&](std::uint64_t n) {
      bytes += n;
      if (o.observer) o.observer->blob_bytes(desc, n);
    });
    auto fetched = src.fetch_blob(desc, counting, offset);
    Result<void> committed = fetched ? (*writer)->commit() : Result<void>(fail(fetched.error()));
    if (committed) return BlobOutcome::kCopied;
    (*writer)->abort();
    last = committed.error();
    if (!worth_retrying(*last, offset) || attempt + 1 == attempts) break;
    if (o.observer) o.observer->blob_retry(desc, *last);
  }
  return fail(last->context("copying blob " + desc.digest.str() + " from " + src.describe() + " to " +
                            dst.describe()));
}

Result<void> CopySession::copy_referrers(Store& src, Store& dst, const std::vector<Descriptor>& subjects,
                                         const CopyOptions& o) {
  CopyOptions sub = o;
  sub.all = true;
  sub.referrers = true;
  sub.pin.reset();  // a referrer is another manifest than the one the destination names
  for (const auto& s : subjects) {
    STRATA_TRY(auto refs, src.referrers(s.digest));
    for (const auto& r : refs.manifests) {
      STRATA_TRY_VOID(copy(src, r.digest.str(), dst, std::nullopt, sub));
    }
  }
  return {};
}

Result<CopyResult> CopySession::copy(Store& src, std::string_view src_ref, Store& dst,
                                     std::optional<std::string_view> dst_tag, const CopyOptions& o) {
  CopyResult result;
  STRATA_TRY(auto root, select_root(src, src_ref, o));
  STRATA_TRY_VOID(check_pin(root.descriptor, o));

  // No-op fast path: the destination already has this exact root.
  std::string dst_ref = dst_tag ? std::string(*dst_tag) : root.descriptor.digest.str();
  if (auto existing = dst.resolve(dst_ref); existing && existing->digest == root.descriptor.digest) {
    result.root = root.descriptor;
    result.already_present = true;
    if (o.referrers) STRATA_TRY_VOID(copy_referrers(src, dst, {root.descriptor}, o));
    return result;
  }

  Plan plan;
  STRATA_TRY_VOID(plan_manifest(src, root, plan));
  std::stable_sort(plan.blobs.begin(), plan.blobs.end(),
                   [](const Descriptor& a, const Descriptor& b) { return a.size > b.size; });
  if (o.observer)
    for (const auto& b : plan.blobs) o.observer->blob_planned(b);

  std::atomic<std::size_t> next{0};
  std::mutex result_mu;
  std::optional<Error> first_error;
  auto worker = [&] {
    while (true) {
      {
        std::lock_guard lock(result_mu);
        if (first_error) return;
      }
      std::size_t i = next++;
      if (i >= plan.blobs.size()) return;
      const auto& desc = plan.blobs[i];
      std::uint64_t bytes = 0;
      auto outcome = copy_blob(src, dst, desc, o, bytes);
      std::lock_guard lock(result_mu);
      if (!outcome) {
        if (!first_error) first_error = outcome.error();
        return;
      }
      result.bytes_copied += bytes;
      switch (*outcome) {
        case BlobOutcome::kCopied: ++result.blobs_copied; break;
        case BlobOutcome::kSkipped: ++result.blobs_skipped; break;
        case BlobOutcome::kMounted: ++result.blobs_mounted; break;
      }
      if (o.observer) o.observer->blob_done(desc, *outcome);
    }
  };
  int jobs = std::clamp(o.jobs, 1, 64);
  {
    std::vector<std::jthread> pool;
    for (int i = 1; i < jobs && static_cast<std::size_t>(i) < plan.blobs.size(); ++i) pool.emplace_back(worker);
    worker();
  }
  if (first_error) return fail(*first_error);

  for (std::size_t i = 0; i + 1 < plan.manifests.size(); ++i) {
    const auto& m = plan.manifests[i];
    if (auto have = dst.resolve(m.descriptor.digest.str()); have) continue;
    STRATA_TRY_VOID(put_manifest_told(dst, m, std::nullopt, o));
    if (o.observer) o.observer->manifest_written(m.descriptor);
  }
  STRATA_TRY_VOID(put_manifest_told(dst, root, dst_tag, o));
  if (o.observer) o.observer->manifest_written(root.descriptor);
  result.root = root.descriptor;

  if (o.referrers) {
    std::vector<Descriptor> subjects;
    for (const auto& m : plan.manifests) subjects.push_back(m.descriptor);
    STRATA_TRY_VOID(copy_referrers(src, dst, subjects, o));
  }
  return result;
}

}  // namespace strata::oci
