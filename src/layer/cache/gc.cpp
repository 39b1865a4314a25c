#include "layer/cache/gc.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "layer/build/build.hpp"
#include "layer/build/overlay_use.hpp"
#include "layer/cache/home_caches.hpp"
#include "layer/cache/overlay_listing.hpp"
#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "util/env.hpp"
#include "util/fs.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

constexpr std::string_view kOverlayPrefix = "overlay-";
constexpr int kMaxDepth = 8;  // indexes of indexes: deeper is not an image strata reads

// The blob table the plan counts bytes over, by digest.
struct Blobs {
  GcModel model;
  std::unordered_map<std::string, std::size_t> index;
  std::size_t add(const std::string& digest, std::uint64_t size) {
    auto [it, fresh] = index.emplace(digest, model.blob_sizes.size());
    if (fresh) {
      model.blob_sizes.push_back(size);
      model.pinned.push_back(false);
    }
    return it->second;
  }
  void pin(const std::string& digest, std::uint64_t size) { model.pinned[add(digest, size)] = true; }
};

std::vector<std::size_t> unique(std::vector<std::size_t> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

// The keys whose use-record tag `tag` is ("overlay-<key>.used" → key), or "".
std::string record_key(std::string_view tag) {
  if (!tag.ends_with(kUseTagSuffix)) return "";
  auto overlay = tag.substr(0, tag.size() - kUseTagSuffix.size());
  return is_overlay_tag(overlay) ? std::string(overlay.substr(kOverlayPrefix.size())) : "";
}

// The overlays of a listing that gc may evict: one plan entry each. An
// overlay another image refers to (also tagged by a name, or a child of
// an index) is that image's, not the cache's.
struct Candidates {
  std::vector<const CachedOverlayEntry*> overlays;
  std::vector<std::int64_t> created;
};

GcOverlay overlay_report(const CachedOverlayEntry& e, std::int64_t created, const GcDecision& d) {
  return {e.keys, e.root, e.last_used, created, e.size, d.freed, d.reason};
}

// ---- layouts -------------------------------------------------------------

struct DiskBlob {
  std::uint64_t size = 0;
  std::int64_t mtime = 0;
};

// Every regular file under blobs/<algorithm>/, by digest string. `refused`
// says why the layout's blobs must not be swept at all: blobs/ or one of
// its algorithm directories is a symbolic link (into another layout's
// store, say), which a sweep would empty through the link.
Result<std::map<std::string, DiskBlob>> disk_blobs(const stdfs::path& dir, std::string& refused) {
  std::map<std::string, DiskBlob> out;
  struct stat st{};
  if (::lstat((dir / "blobs").c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    refused = (dir / "blobs").string() + " is a symbolic link; gc never deletes through one (make it a directory "
                                         "of this layout's own, or collect the layout it points into)";
    return out;
  }
  std::vector<std::string> algorithms;
  if (int err = fs::env().list(dir / "blobs", algorithms); err != 0 && err != ENOENT) {
    return fail(fs::io_error("cannot list", dir / "blobs", err));
  }
  for (const auto& alg : algorithms) {
    if (::lstat((dir / "blobs" / alg).c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
      refused = (dir / "blobs" / alg).string() + " is a symbolic link; gc never deletes through one (make it a "
                                                 "directory of this layout's own, or collect the layout it points into)";
      continue;
    }
    std::vector<std::string> names;
    if (int err = fs::env().list(dir / "blobs" / alg, names); err != 0) {
      if (err == ENOTDIR || err == ENOENT) continue;
      return fail(fs::io_error("cannot list", dir / "blobs" / alg, err));
    }
    for (const auto& n : names) {
      if (::lstat((dir / "blobs" / alg / n).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
      out[alg + ":" + n] = {static_cast<std::uint64_t>(st.st_size), static_cast<std::int64_t>(st.st_mtim.tv_sec)};
    }
  }
  return out;
}

// A directory opened without following a symbolic link at any step below
// the layout (which the user named): the blob removals are relative to it.
class BlobDir {
 public:
  ~BlobDir() {
    if (fd_ >= 0) ::close(fd_);
  }
  static Result<std::unique_ptr<BlobDir>> open(const stdfs::path& layout, const std::string& alg) {
    auto d = std::make_unique<BlobDir>();
    d->path_ = layout / "blobs" / alg;
    int top = ::open(layout.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (top < 0) return fail(fs::io_error("cannot open directory", layout, errno));
    int blobs = ::openat(top, "blobs", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    int err = errno;
    ::close(top);
    if (blobs < 0) return fail(fs::io_error("cannot open directory (not following a link)", layout / "blobs", err));
    d->fd_ = ::openat(blobs, alg.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    err = errno;
    ::close(blobs);
    if (d->fd_ < 0) return fail(fs::io_error("cannot open directory (not following a link)", d->path_, err));
    return d;
  }
  // Removes `name` if it is a regular file here; a symbolic link (or
  // anything else) is left and reported.
  Result<bool> remove(const std::string& name) {
    struct stat st{};
    if (::fstatat(fd_, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      const int err = errno;
      if (err == ENOENT) return true;
      return fail(fs::io_error("cannot stat", path_ / name, err));
    }
    if (!S_ISREG(st.st_mode)) return false;
    if (int err = fs::env().remove_at(fd_, path_, name); err != 0 && err != ENOENT) {
      return fail(fs::io_error("cannot remove", path_ / name, err));
    }
    return true;
  }
  // The removals made durable (an fsync reaches the same directory however
  // it is opened, so by its name, as every durable write does).
  Result<void> sync() { return fs::sync_dir(path_); }

 private:
  int fd_ = -1;
  stdfs::path path_;
};

// What each manifest reaches: itself, its config and layers, an index's
// children recursively. A manifest that cannot be read (or an index nested
// deeper than strata reads) reaches only itself as far as gc knows, and is
// recorded in unreadable(): what it names is unknown, so gc must not sweep.
class Reach {
 public:
  explicit Reach(oci::Store& store) : store_(store) {}

  const std::vector<std::string>& of(const oci::Descriptor& d, int depth = 0) {
    const std::string key = d.digest.str();
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    std::vector<std::string> out{key};
    if (oci::media::is_manifest_or_index(d.media_type)) {
      auto bytes = depth < kMaxDepth ? oci::read_blob(store_, d, oci::kMaxManifestBytes)
                                     : Result<std::string>(fail(ErrorCode::kInvalidArgument,
                                                                "nested deeper than " + std::to_string(kMaxDepth) +
                                                                    " indexes"));
      auto parsed = bytes ? oci::parse_manifest(*bytes, d.media_type, store_.describe() + "@" + key)
                          : Result<oci::ParsedManifest>(std::unexpected(bytes.error()));
      if (parsed) {
        if (auto* m = std::get_if<oci::ImageManifest>(&*parsed)) {
          out.push_back(m->config.digest.str());
          for (const auto& l : m->layers) out.push_back(l.digest.str());
          if (m->subject) subject_[key] = m->subject->digest.str();
        } else if (auto* idx = std::get_if<oci::ImageIndex>(&*parsed)) {
          for (const auto& child : idx->manifests) {
            const auto& sub = of(child, depth + 1);
            out.insert(out.end(), sub.begin(), sub.end());
          }
          if (idx->subject) subject_[key] = idx->subject->digest.str();
        }
      } else if (unreadable_.empty()) {
        unreadable_ = key + ": " + parsed.error().message();
      }
    } else if (unreadable_.empty()) {
      // An entry of a type strata does not read (Docker schema 1, an
      // artifact type of another tool) may name blobs all the same.
      unreadable_ = key + ": a " + (d.media_type.empty() ? std::string("manifest without a media type") : d.media_type) +
                    " strata does not read";
    }
    return memo_.emplace(key, std::move(out)).first->second;
  }

  // The first manifest of()'s walks could not read, with why; "" when none.
  const std::string& unreadable() const { return unreadable_; }

  // The digest the manifest's `subject` names, "" when none (after of()).
  std::string subject(const std::string& digest) const {
    auto it = subject_.find(digest);
    return it == subject_.end() ? "" : it->second;
  }

 private:
  oci::Store& store_;
  std::unordered_map<std::string, std::vector<std::string>> memo_;
  std::unordered_map<std::string, std::string> subject_;
  std::string unreadable_;
};

struct EntryId {
  std::string digest;
  std::string tag;
  auto operator<=>(const EntryId&) const = default;
};
EntryId id_of(const oci::Descriptor& d) { return {d.digest.str(), d.ref_name()}; }

// The manifests an index root names (none for an image, or an index that
// cannot be read: gc then keeps what it cannot see). `unreadable`, when
// given, is set when an index could not be read.
std::vector<std::string> index_children(oci::Store& store, const oci::Descriptor& root, bool* unreadable = nullptr) {
  std::vector<std::string> out;
  if (!oci::media::is_index(root.media_type)) return out;
  auto fetched = oci::fetch_manifest(store, root.digest.str());
  const auto* idx = fetched ? std::get_if<oci::ImageIndex>(&fetched->parsed) : nullptr;
  if (!idx) {
    if (unreadable) *unreadable = true;
    return out;
  }
  for (const auto& child : idx->manifests) out.push_back(child.digest.str());
  return out;
}

Result<GcReport> gc_layout(oci::LayoutStore& layout, const GcOptions& o, const Clock& clock) {
  const std::int64_t now = clock.now();
  const std::int64_t young = now - o.policy.min_age;  // a blob or an item newer than this stays
  GcReport report;
  report.cache = layout.describe();
  report.dry_run = o.dry_run;

  // The leases first: with the layout's held, no strata writer has it open.
  STRATA_TRY(auto lease, fs::FileLock::try_acquire(oci::LayoutStore::lease_path(layout.dir())));
  report.sweep_deferred = !lease;
  std::optional<fs::FileLock> home_lease;
  if (o.home) {
    STRATA_TRY(home_lease, fs::FileLock::try_acquire(fs::home_lease_path(*o.home)));
    report.home_deferred = !home_lease;
  }

  STRATA_TRY(auto listing, list_overlays(layout, clock, report.problems));
  report.ignored_uses = listing.ignored_uses;
  std::string links;
  STRATA_TRY(auto on_disk, disk_blobs(layout.dir(), links));
  STRATA_TRY(auto entries, layout.entries());
  Reach reach(layout);
  for (const auto& e : entries) (void)reach.of(e);
  // Nothing is provably unreferenced while an image cannot be read, and
  // nothing is deleted through a link: the tags may go, no blob does.
  if (!links.empty()) report.kept_all = links;
  else if (!reach.unreadable().empty())
    report.kept_all = "an image gc cannot read (" + reach.unreadable() +
                      "), so what it names is unknown; repair or untag it and gc again";
  auto disk_size = [&](const std::string& digest) {
    auto it = on_disk.find(digest);
    return it == on_disk.end() ? std::uint64_t{0} : it->second.size;
  };

  // Each candidate overlay owns its key tags, their use records and the
  // referrers of its manifest: the index.json entries that go with it.
  Blobs blobs;
  Candidates cand;
  std::vector<std::vector<EntryId>> owned;
  std::set<EntryId> owned_any;
  std::unordered_map<std::string, std::vector<const oci::Descriptor*>> by_subject;
  for (const auto& e : entries)
    if (auto s = reach.subject(e.digest.str()); !s.empty()) by_subject[s].push_back(&e);
  std::unordered_map<std::string, std::vector<const oci::Descriptor*>> by_tag, untagged;
  for (const auto& e : entries) {
    if (e.ref_name().empty()) untagged[e.digest.str()].push_back(&e);
    else by_tag[e.ref_name()].push_back(&e);
  }
  for (const auto& ov : listing.overlays) {
    if (listing.other_blobs.contains(ov.root.digest.str())) continue;
    // Its key tags, their use records, an untagged entry of it, its referrers.
    std::vector<const oci::Descriptor*> found;
    auto take = [&](const auto& map, const std::string& k) {
      if (auto it = map.find(k); it != map.end()) found.insert(found.end(), it->second.begin(), it->second.end());
    };
    for (const auto& k : ov.keys) {
      take(by_tag, std::string(kOverlayPrefix) + k);
      take(by_tag, std::string(kOverlayPrefix) + k + std::string(kUseTagSuffix));
    }
    take(untagged, ov.root.digest.str());
    take(by_subject, ov.root.digest.str());
    // A multi-platform overlay's SBOMs and provenance are its platforms' referrers.
    for (const auto& child : index_children(layout, ov.root)) take(by_subject, child);
    std::vector<EntryId> mine;
    GcEntry entry;
    for (const auto* e : found) {
      auto id = id_of(*e);
      if (std::find(mine.begin(), mine.end(), id) != mine.end()) continue;
      mine.push_back(std::move(id));
      for (const auto& b : reach.of(*e)) entry.blobs.push_back(blobs.add(b, disk_size(b)));
    }
    entry.blobs = unique(std::move(entry.blobs));
    auto root_file = on_disk.find(ov.root.digest.str());
    std::int64_t created = ov.first_used ? ov.first_used : root_file != on_disk.end() ? root_file->second.mtime : now;
    entry.created = created;
    entry.last_used = ov.last_used ? ov.last_used : created;
    blobs.model.entries.push_back(std::move(entry));
    cand.overlays.push_back(&ov);
    cand.created.push_back(created);
    owned_any.insert(mine.begin(), mine.end());
    owned.push_back(std::move(mine));
  }
  const std::size_t n_overlays = cand.overlays.size();
  // A use record whose overlay tag is gone (a gc killed part-way, a tag
  // removed by hand) goes once it is old enough.
  std::set<std::string> tags_now;
  for (const auto& e : entries) tags_now.insert(e.ref_name());
  std::vector<EntryId> orphans;
  for (const auto& e : entries) {
    auto key = record_key(e.ref_name());
    if (key.empty() || tags_now.contains(std::string(kOverlayPrefix) + key) || owned_any.contains(id_of(e))) continue;
    auto file = on_disk.find(e.digest.str());
    if (file != on_disk.end() && file->second.mtime > young) continue;
    orphans.push_back(id_of(e));
  }
  // A referrer whose subject index.json no longer reaches (an image removed
  // by hand, a build that failed after attaching) goes once it is old enough
  // — judged only when gc can see everything: no index it cannot read, and
  // no writer holding the layout (a build attaches its platforms' documents
  // before it tags their index).
  std::set<std::string> present;
  bool unreadable = !report.kept_all.empty() || report.sweep_deferred;
  for (const auto& e : entries) {
    present.insert(e.digest.str());
    for (auto& child : index_children(layout, e, &unreadable)) present.insert(std::move(child));
  }
  for (const auto& e : entries) {
    if (unreadable) break;
    auto subject = reach.subject(e.digest.str());
    if (subject.empty() || present.contains(subject) || owned_any.contains(id_of(e))) continue;
    auto file = on_disk.find(e.digest.str());
    if (file != on_disk.end() && file->second.mtime > young) continue;
    orphans.push_back(id_of(e));
  }
  // Everything else index.json names is kept, and so is every blob too
  // young to judge (a writer that holds no lease may be about to name it).
  std::set<EntryId> orphan_set(orphans.begin(), orphans.end());
  for (const auto& e : entries) {
    if (owned_any.contains(id_of(e)) || orphan_set.contains(id_of(e))) continue;
    for (const auto& b : reach.of(e)) blobs.pin(b, disk_size(b));
  }
  for (const auto& [digest, file] : on_disk)
    if (file.mtime > young) blobs.pin(digest, file.size);
  // The home caches: one entry each, under the same cap.
  std::vector<HomeCacheItem> items;
  if (o.home) items = home_cache_items(*o.home);
  for (const auto& item : items) {
    GcEntry entry{item.mtime, item.mtime, {blobs.add("home:" + item.path.string(), item.bytes)}};
    blobs.model.entries.push_back(std::move(entry));
  }

  GcPlan plan = plan_gc(blobs.model, o.policy, now);
  report.bytes_before = plan.bytes_before;
  report.bytes_after = report.kept_all.empty() ? plan.bytes_after : plan.bytes_before;
  report.cap_met = plan.cap_met;
  std::set<EntryId> drop(orphans.begin(), orphans.end());
  std::vector<const HomeCacheItem*> home_out;
  for (const auto& d : plan.evicted) {
    if (d.entry < n_overlays) {
      report.overlays.push_back(overlay_report(*cand.overlays[d.entry], cand.created[d.entry], d));
      drop.insert(owned[d.entry].begin(), owned[d.entry].end());
    } else if (!report.home_deferred) {
      const auto& item = items[d.entry - n_overlays];
      home_out.push_back(&item);
      report.home.push_back({item.cache, item.path.string(), item.bytes, item.mtime, d.reason});
      report.home_bytes += item.bytes;
    }
  }
  report.kept_overlays = listing.overlays.size() - report.overlays.size();
  // A referrer stays while what it refers to stays: a platform manifest an
  // evicted overlay shares with a kept one (the same amd64 image alone and
  // in a two-platform index) keeps its SBOMs and provenance.
  std::set<std::string> kept_subjects;
  for (const auto& e : entries) {
    if (drop.contains(id_of(e))) continue;
    kept_subjects.insert(e.digest.str());
    for (auto& child : index_children(layout, e)) kept_subjects.insert(std::move(child));
  }
  std::erase_if(drop, [&](const EntryId& id) {
    auto subject = reach.subject(id.digest);
    return !subject.empty() && kept_subjects.contains(subject);
  });
  for (const auto& e : entries) {
    if (!drop.contains(id_of(e))) continue;
    std::string what = !record_key(e.ref_name()).empty() ? "use record"
                       : is_overlay_tag(e.ref_name())    ? "overlay"
                       : reach.subject(e.digest.str()).empty() ? "overlay" : "referrer";
    report.removed.push_back({what, e.ref_name(), e.digest.str()});
  }

  // 1. index.json, in one atomic rewrite.
  if (!o.dry_run && !drop.empty()) {
    STRATA_TRY(auto n, layout.remove_entries([&](const oci::Descriptor& d) { return drop.contains(id_of(d)); }));
    (void)n;
  }
  // 2. The blobs the index that stays does not reach. Read again after the
  // rewrite: what is reachable is what that file names now.
  if (!report.sweep_deferred && report.kept_all.empty()) {
    std::set<std::string> live;
    if (o.dry_run) {
      for (const auto& e : entries)
        if (!drop.contains(id_of(e)))
          for (const auto& b : reach.of(e)) live.insert(b);
    } else {
      STRATA_TRY(auto now_entries, layout.entries());
      for (const auto& e : now_entries)
        for (const auto& b : reach.of(e)) live.insert(b);
    }
    // An entry written meanwhile that cannot be read: nothing is swept.
    if (!reach.unreadable().empty()) {
      report.kept_all = "an image gc cannot read (" + reach.unreadable() +
                        "), so what it names is unknown; repair or untag it and gc again";
    }
    for (const auto& [digest, file] : on_disk) {
      if (!report.kept_all.empty()) break;
      if (live.contains(digest) || file.mtime > young) continue;
      report.blobs.push_back({digest, file.size});
      report.blob_bytes += file.size;
    }
    if (!o.dry_run) {
      std::map<std::string, std::unique_ptr<BlobDir>> dirs;  // by algorithm
      for (const auto& b : report.blobs) {
        const auto colon = b.digest.find(':');
        const std::string alg = b.digest.substr(0, colon), name = b.digest.substr(colon + 1);
        auto& dir = dirs[alg];
        if (!dir) {
          STRATA_TRY(dir, with_context(BlobDir::open(layout.dir(), alg), layout.describe() + ": gc"));
        }
        STRATA_TRY(bool removed, with_context(dir->remove(name), layout.describe() + ": gc"));
        if (!removed) report.problems.push_back(layout.describe() + ": blobs/" + alg + "/" + name +
                                                " is not a regular file (a symbolic link?); left in place");
      }
      for (auto& [_, dir] : dirs) STRATA_TRY_VOID(dir->sync());
    }
  }
  // 3. The home caches, each item whole or not at all.
  if (o.home && !report.home_deferred && !o.dry_run) {
    STRATA_TRY_VOID(remove_home_leftovers(*o.home));
    for (const auto* item : home_out) STRATA_TRY_VOID(remove_home_item(*item));
  }
  return report;
}

// ---- registries ----------------------------------------------------------

Result<GcReport> gc_registry(oci::Store& store, const GcOptions& o, const Clock& clock) {
  const std::int64_t now = clock.now();
  GcReport report;
  report.cache = store.describe();
  report.registry = true;
  report.dry_run = o.dry_run;
  STRATA_TRY(auto listing, list_overlays(store, clock, report.problems));
  report.ignored_uses = listing.ignored_uses;
  // A DELETE by digest removes every tag of that manifest: while a tag's
  // image cannot be read, any deletion may take it (or its children) too.
  if (!listing.unreadable.empty()) {
    report.kept_all = "an image gc cannot read (" + listing.unreadable.front() +
                      (listing.unreadable.size() > 1 ? "; and " + std::to_string(listing.unreadable.size() - 1) + " more"
                                                     : std::string()) +
                      "), so any manifest may be its; repair or untag it and gc again";
  }

  Blobs blobs;
  Candidates cand;
  std::vector<const CachedOverlayEntry*> unrecorded_overlays;
  for (const auto& ov : listing.overlays) {
    if (listing.other_blobs.contains(ov.root.digest.str())) continue;
    GcEntry entry;
    for (const auto& [digest, size] : ov.blobs) entry.blobs.push_back(blobs.add(digest, size));
    entry.blobs = unique(std::move(entry.blobs));
    // No use record (mirrored in, or pushed by a strata that wrote none):
    // a registry keeps no time, so its age is unknown. It counts as arriving
    // now — --min-age protects it — and a real run records that first
    // sighting, from which later runs count its age and last use.
    const bool unrecorded = ov.first_used == 0;
    entry.created = unrecorded ? now : ov.first_used;
    entry.last_used = unrecorded ? now : ov.last_used ? ov.last_used : ov.first_used;
    cand.created.push_back(entry.created);
    blobs.model.entries.push_back(std::move(entry));
    cand.overlays.push_back(&ov);
    if (unrecorded) unrecorded_overlays.push_back(&ov);
  }
  for (const auto& b : listing.other_blobs) blobs.pin(b, 0);
  GcPlan plan = plan_gc(blobs.model, o.policy, now);
  report.bytes_before = plan.bytes_before;
  report.bytes_after = plan.bytes_after;
  report.cap_met = plan.cap_met;

  // What each evicted overlay takes with it, found before anything goes so
  // that a dry run lists exactly what a real run deletes.
  std::set<std::string> kept_blobs(listing.other_blobs.begin(), listing.other_blobs.end());
  std::set<std::size_t> evicted;
  for (const auto& d : plan.evicted) evicted.insert(d.entry);
  for (std::size_t i = 0; i < cand.overlays.size(); ++i)
    if (!evicted.contains(i))
      for (const auto& [digest, _] : cand.overlays[i]->blobs) kept_blobs.insert(digest);
  for (const auto& ov : listing.overlays)
    if (listing.other_blobs.contains(ov.root.digest.str()))
      for (const auto& [digest, _] : ov.blobs) kept_blobs.insert(digest);
  std::set<std::string> deleting;
  auto add = [&](std::string what, std::string ref, std::string digest) {
    if (!deleting.insert(digest).second) return;
    report.removed.push_back({std::move(what), std::move(ref), std::move(digest)});
  };
  for (const auto& d : plan.evicted) {
    const auto& ov = *cand.overlays[d.entry];
    // A registry deletes a manifest by digest, with every tag it has: one
    // that a kept overlay also names (the amd64 image alone and as a
    // platform of a two-platform index: one key, the same bytes) stays.
    if (kept_blobs.contains(ov.root.digest.str())) {
      report.problems.push_back(std::string(kOverlayPrefix) + ov.keys.front() + ": kept, its manifest " +
                                ov.root.digest.str() + " is also a platform of an overlay gc keeps");
      continue;
    }
    report.overlays.push_back(overlay_report(ov, cand.created[d.entry], d));
    add("overlay", std::string(kOverlayPrefix) + ov.keys.front(), ov.root.digest.str());
    if (oci::media::is_index(ov.root.media_type)) {
      STRATA_TRY(auto fetched, oci::fetch_manifest(store, ov.root.digest.str()));
      if (auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed))
        for (const auto& child : idx->manifests)
          if (!kept_blobs.contains(child.digest.str())) add("child manifest", "", child.digest.str());
    }
    for (const auto& k : ov.keys) {
      const std::string tag = std::string(kOverlayPrefix) + k;
      if (auto use = read_use(store, tag)) add("use record", use_tag(tag), use->record.digest.str());
    }
    // Its referrers, and its platforms' (the SBOMs and provenance a build
    // attaches to each platform's manifest). A registry without the
    // referrers API keeps them in an index tagged sha256-<hex> (the tag
    // schema): it goes with its subject, not left dangling for every later
    // ls and gc to trip on.
    std::vector<std::string> subjects{ov.root.digest.str()};
    for (auto& child : index_children(store, ov.root)) subjects.push_back(std::move(child));
    for (const auto& subject : subjects) {
      if (subject != ov.root.digest.str() && kept_blobs.contains(subject)) continue;  // a kept overlay's platform too
      auto digest = oci::Digest::parse(subject);
      if (!digest) continue;
      if (auto refs = store.referrers(*digest)) {
        for (const auto& r : refs->manifests) add("referrer", "", r.digest.str());
      }
      const std::string referrers = oci::referrers_tag(*digest);
      if (auto idx = store.resolve(referrers)) add("referrers tag", referrers, idx->digest.str());
    }
  }
  // Referrers tags whose subject is already gone (a gc before this one).
  for (const auto& [tag, digest] : listing.dangling_referrers) add("referrers tag", tag, digest);
  // Use records whose overlay tag is gone (a gc killed part-way).
  STRATA_TRY(auto tags, store.list_tags());
  std::set<std::string> tag_set(tags.begin(), tags.end());
  for (const auto& t : tags) {
    auto key = record_key(t);
    if (key.empty() || tag_set.contains(std::string(kOverlayPrefix) + key)) continue;
    auto use = read_use(store, std::string(kOverlayPrefix) + key);
    // A record with impossible times protects nothing; its overlay is gone.
    if (use && (use->last_used <= now - o.policy.min_age || !implausible_use(*use, now).empty()))
      add("use record", t, use->record.digest.str());
  }
  if (!report.kept_all.empty()) {
    report.overlays.clear();
    report.removed.clear();
    report.bytes_after = report.bytes_before;
  }
  report.kept_overlays = listing.overlays.size() - report.overlays.size();
  if (o.dry_run) return report;
  for (const auto* ov : unrecorded_overlays) {
    for (const auto& k : ov->keys) {
      auto stamped = record_use(store, std::string(kOverlayPrefix) + k, ov->root, "", clock, kRegistryUseRefresh);
      if (!stamped) report.problems.push_back(std::string(kOverlayPrefix) + k + ": recording its first sighting: " +
                                              stamped.error().message());
    }
  }
  // The overlay first: a gc stopped after it leaves only records and
  // children, which the next gc (or the registry's) removes.
  for (const auto& r : report.removed) {
    auto d = oci::Digest::parse(r.digest);
    if (!d) continue;
    if (auto deleted = store.delete_manifest(*d); !deleted && deleted.error().code() != ErrorCode::kNotFound) {
      return fail(deleted.error());
    }
  }
  return report;
}

}  // namespace

Result<GcReport> collect_garbage(oci::Store& store, const GcOptions& options, const Clock& clock) {
  if (auto* layout = dynamic_cast<oci::LayoutStore*>(&store)) return gc_layout(*layout, options, clock);
  return gc_registry(store, options, clock);
}

}  // namespace strata::layer
