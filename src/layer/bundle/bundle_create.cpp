#include "layer/bundle/bundle_create.hpp"

#include <map>
#include <set>

#include "oci/layout_store.hpp"
#include "oci/layout_tar.hpp"
#include "oci/media_types.hpp"
#include "oci/mirror.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

// The referrers `layout` holds of each image's root and of the manifests an
// index root names, once each.
Result<std::vector<BundleReferrer>> bundle_referrers(oci::Store& layout, const std::vector<BundleImage>& images) {
  std::vector<BundleReferrer> out;
  std::set<std::string> seen;
  for (const auto& img : images) {
    std::vector<oci::Digest> subjects{img.root.digest};
    if (oci::media::is_index(img.root.media_type)) {
      STRATA_TRY(auto fetched, oci::fetch_manifest(layout, img.root.digest.str()));
      if (const auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed))
        for (const auto& child : idx->manifests) subjects.push_back(child.digest);
    }
    // The copy brought referrers of referrers too (a signature of an SBOM):
    // each is listed under its own subject, a few levels deep.
    for (int depth = 0; depth < 4 && !subjects.empty(); ++depth) {
      std::vector<oci::Digest> next;
      for (const auto& subject : subjects) {
        STRATA_TRY(auto listed, layout.referrers(subject));
        for (const auto& d : listed.manifests) {
          if (!oci::media::is_image_manifest(d.media_type)) continue;  // an index: not carried (bundle_format)
          if (!seen.insert(d.digest.str() + " " + subject.str()).second) continue;
          out.push_back({subject, d});
          next.push_back(d.digest);
        }
      }
      subjects = std::move(next);
    }
  }
  return out;
}

// The file a run drops into its staging directory first: only a directory
// holding it (or a finished bundle layout, whose bookkeeping a run removes
// just before the final rename) is taken for one a killed run left.
constexpr std::string_view kStagingMarker = ".strata/bundle-staging";

// A staging directory a killed earlier run left is taken over only when it
// is one; anything else (a user's own layout of that name) is refused.
Result<void> clear_staging(const stdfs::path& staging) {
  std::error_code ec;
  if (!stdfs::exists(staging, ec)) return {};
  auto index = fs::read_file(staging / "index.json", 64ull << 20);
  bool finished_bundle = stdfs::exists(staging / "oci-layout", ec) && index &&
                         index->find("\"" + std::string(kBundleTag) + "\"") != std::string::npos;
  bool ours = stdfs::is_directory(staging, ec) &&
              (stdfs::exists(staging / kStagingMarker, ec) || finished_bundle || stdfs::is_empty(staging, ec));
  if (!ours) {
    return fail(ErrorCode::kInvalidArgument, staging.string() + " exists and is not a bundle being written; move it "
                                                                "away (strata stages the bundle there)");
  }
  return fs::remove_tree(staging);
}

// The .deb's bytes from the cache into the bundle, verified on commit.
Result<void> put_deb(oci::Store& bundle, const stdfs::path& home, const LockPackage& p, const oci::Descriptor& layer) {
  const auto file = deb_cache_path(home, p.sha256);
  const std::string what = file.string() + " (" + p.name + " " + p.version + " " + p.architecture + ")";
  auto put = oci::write_blob_file(bundle, layer, file, what);
  if (!put && put.error().code() == ErrorCode::kCorruption) {
    return fail(ErrorCode::kCorruption, put.error().message() + ": it does not match the lock's size and sha256; "
                                                                "remove it and run 'strata fetch --lock' again");
  }
  return put;
}

struct LockInput {
  std::string name;
  std::string bytes;
  Lock lock;
};

Result<std::vector<LockInput>> read_locks(const std::vector<stdfs::path>& paths) {
  std::vector<LockInput> out;
  std::map<std::string, stdfs::path> seen;
  for (const auto& p : paths) {
    LockInput in;
    in.name = p.filename().string();
    if (auto [it, fresh] = seen.emplace(in.name, p); !fresh) {
      return fail(ErrorCode::kInvalidArgument, "--lock " + p.string() + " and --lock " + it->second.string() +
                                                   " have the same file name; a bundle keeps locks by name, so "
                                                   "rename one");
    }
    STRATA_TRY(in.bytes, fs::read_file(p, kMaxLockBytes));
    STRATA_TRY(in.lock, parse_lock(in.bytes, p.string()));
    out.push_back(std::move(in));
  }
  return out;
}

Result<std::uint64_t> blob_bytes(const stdfs::path& dir) {
  std::uint64_t n = 0;
  std::error_code ec;
  for (const auto& e : stdfs::recursive_directory_iterator(dir / "blobs", ec))
    if (e.is_regular_file(ec)) n += e.file_size(ec);
  if (ec) return fail(fs::io_error("cannot list", dir / "blobs", ec.value()));
  return n;
}

}  // namespace

bool bundle_is_tar(const stdfs::path& out) { return bundle_out_path(out).extension() == ".tar"; }

stdfs::path bundle_out_path(const stdfs::path& out) {
  std::string s = out.string();
  while (s.size() > 1 && s.back() == '/') s.pop_back();
  return s;
}

Result<BundleCreateReport> create_bundle(const BundleCreateRequest& r, oci::http::Transport& http, Clock& clock) {
  if (r.mirror.empty() && r.locks.empty() && r.toolchains.empty()) {
    return fail(ErrorCode::kInvalidArgument,
                "a bundle needs something to carry: give --mirror FILE, --lock FILE, --toolchains FILE, or several");
  }
  const stdfs::path out = bundle_out_path(r.out);
  std::error_code ec;
  if (stdfs::exists(out, ec) || stdfs::is_symlink(out, ec)) {
    return fail(ErrorCode::kAlreadyExists,
                "--out " + out.string() + " exists; remove it or name a new path (a bundle is written whole)");
  }
  BundleCreateReport report;
  report.tar = bundle_is_tar(out);

  // Everything is read and checked before anything is written.
  oci::MirrorConfig mirror;
  if (!r.mirror.empty()) {
    STRATA_TRY(mirror, oci::load_mirror_config(r.mirror));
  }
  // The images, repositories expanded to their filtered tags, opened with
  // the config's per-registry settings, as `strata mirror` would.
  const oci::OpenOptions open = oci::with_config_registries(mirror, r.open);
  std::vector<oci::MirrorEntry> entries = mirror.images;
  for (const auto& repo : mirror.repositories) {
    STRATA_TRY(auto tags, with_context(oci::expand_repository(repo, open), repo.where));
    entries.insert(entries.end(), tags.begin(), tags.end());
  }
  std::vector<std::string> names;
  std::map<std::string, std::string> source_of;
  for (const auto& e : entries) {
    STRATA_TRY(auto name, with_context(bundle_image_name(e.source, e.destination), r.mirror.string()));
    if (auto [it, fresh] = source_of.emplace(name, e.source); !fresh) {
      return fail(ErrorCode::kInvalidArgument, r.mirror.string() + ": " + e.source + " and " + it->second +
                                                   " both become " + name + " in the bundle; give them different "
                                                   "destinations");
    }
    names.push_back(std::move(name));
  }
  STRATA_TRY(auto locks, read_locks(r.locks));

  // The .debs, into the cache first (as `strata fetch --lock` would).
  FetchOptions fo;
  fo.home = r.home;
  fo.jobs = static_cast<unsigned>(std::max(1, r.copy.jobs));
  fo.offline = r.offline;
  fo.clock = &clock;
  for (const auto& l : locks) {
    auto fetched = fetch_debs(http, l.lock, fo);
    if (!fetched) return fail(fetched.error().context("--lock " + l.name));
    report.fetch.downloaded += fetched->downloaded;
    report.fetch.cached += fetched->cached;
    report.fetch.bytes += fetched->bytes;
  }

  // The toolchain releases, ensured into the cache first (resolved,
  // downloaded and verified as their projects publish them).
  STRATA_TRY(auto toolchains, ensure_bundle_toolchains(http, r.toolchains, r.home, r.offline));
  report.toolchain_downloaded = toolchains.downloaded;

  stdfs::path staging = out;
  staging += ".partial";
  // One writer per output: a second `bundle create --out` of the same path
  // is refused instead of deleting the first one's staging under it.
  const stdfs::path abs_out = stdfs::absolute(out, ec).lexically_normal();
  STRATA_TRY_VOID(fs::make_dirs(r.home / "locks"));
  STRATA_TRY(auto held, fs::FileLock::try_acquire(r.home / "locks" / ("bundle-" + sha256_hex(abs_out.string()) + ".lock")));
  if (!held) {
    return fail(ErrorCode::kAlreadyExists, "--out " + out.string() + ": another strata bundle create is writing it");
  }
  STRATA_TRY_VOID(clear_staging(staging));
  // From here a failure removes the staging directory: nothing half-written
  // stays beside --out (the next run would start afresh anyway).
  struct StagingGuard {
    const stdfs::path& dir;
    bool armed = true;
    ~StagingGuard() {
      if (armed) (void)fs::remove_tree(dir);
    }
  } guard{staging};
  STRATA_TRY_VOID(fs::make_dirs(staging / ".strata"));
  STRATA_TRY_VOID(fs::write_file_atomic(staging / kStagingMarker, "strata bundle create\n"));
  {
    STRATA_TRY(auto layout, oci::LayoutStore::open(staging, oci::LayoutMode::kCreate));
    BundleContents& c = report.contents;

    oci::CopySession session;
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const auto& e = entries[i];
      STRATA_TRY(auto src_ref, oci::parse_image_ref(e.source));
      STRATA_TRY(auto src, with_context(oci::open_store(src_ref, oci::Access::kRead, open), e.source));
      oci::CopyOptions co = r.copy;
      co.all = e.all;
      co.platform = e.platform;
      auto copied = session.copy(*src.store, src.ref, *layout, names[i], co);
      if (!copied) return fail(copied.error().context(e.source + " → bundle"));
      c.images.push_back({names[i], e.source, copied->root});
    }
    // With --referrers the copies brought each image's referrers and its
    // platforms' along; the bundle index lists them, so a load carries
    // exactly those, checked.
    if (r.copy.referrers) {
      STRATA_TRY(c.referrers, bundle_referrers(*layout, c.images));
    }

    STRATA_TRY_VOID(oci::write_blob(*layout, empty_config(), kEmptyConfigBytes));
    std::map<std::string, const LockPackage*> debs;  // by sha256: one artifact per package file
    for (const auto& l : locks) {
      auto content = oci::descriptor_for(kLockMediaType, l.bytes);
      STRATA_TRY_VOID(oci::write_blob(*layout, content, l.bytes));
      auto m = lock_artifact(l.name, l.lock.platform, content);
      STRATA_TRY_VOID(oci::write_blob(*layout, m.descriptor, m.bytes));
      c.locks.push_back({l.name, l.lock.platform, m.descriptor});
      for (const auto& p : l.lock.packages) debs.emplace(p.sha256, &p);
    }
    for (const auto& [sha, p] : debs) {
      auto m = deb_artifact(*p);
      STRATA_TRY(auto parsed, oci::parse_manifest(m.bytes, m.descriptor.media_type, "the artifact of " + p->name));
      STRATA_TRY(auto layer, artifact_layer(parsed, kDebArtifactType, p->name));
      STRATA_TRY_VOID(put_deb(*layout, r.home, *p, layer));
      STRATA_TRY_VOID(oci::write_blob(*layout, m.descriptor, m.bytes));
      c.debs.push_back({p->name, p->version, p->architecture, p->filename, p->sha256,
                        static_cast<std::int64_t>(p->size), m.descriptor});
    }

    for (const auto& rel : toolchains.releases) {
      STRATA_TRY(auto t, put_toolchain(*layout, r.home, rel));
      c.toolchains.push_back(std::move(t));
    }

    sort_bundle_contents(c);  // the report lists what the index lists, in its order
    auto index = bundle_index(c);
    STRATA_TRY_VOID(layout->put_manifest(index, kBundleTag));
    report.index = index.descriptor;
    STRATA_TRY_VOID(layout->close());
  }
  // The layout's own bookkeeping (locks, the empty ingest) is not part of it.
  STRATA_TRY_VOID(fs::remove_tree(staging / ".strata"));
  STRATA_TRY(report.blob_bytes, blob_bytes(staging));
  if (stdfs::exists(out, ec) || stdfs::is_symlink(out, ec)) {  // appeared meanwhile: never replaced
    return fail(ErrorCode::kAlreadyExists, "--out " + out.string() + " appeared while the bundle was written; it "
                                               "is left as it was and nothing was written: remove it or name a new "
                                               "path");
  }
  if (report.tar) {
    STRATA_TRY(report.sha256, oci::write_layout_tar(staging, out));
    STRATA_TRY_VOID(fs::remove_tree(staging));
  } else {
    STRATA_TRY_VOID(fs::rename_file(staging, out));
    guard.armed = false;
    STRATA_TRY_VOID(fs::sync_dir(out.parent_path().empty() ? stdfs::path(".") : out.parent_path()));
  }
  guard.armed = false;
  return report;
}

}  // namespace strata::layer
