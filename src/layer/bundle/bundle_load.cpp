#include "layer/bundle/bundle_load.hpp"

#include <algorithm>
#include <set>

#include "layer/apt/deb_fetcher.hpp"
#include "oci/archive_store.hpp"
#include "oci/copy.hpp"
#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "oci/reference.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

// The bundle's referrers of `img`: of its root, of a manifest its index
// names, and of those referrers (a signature of an SBOM), subjects first.
std::vector<const BundleReferrer*> referrers_of(const std::vector<BundleReferrer>& all, const BundleImage& img,
                                                const std::set<oci::Digest>& children) {
  std::vector<const BundleReferrer*> out;
  std::set<oci::Digest> subjects = children;
  subjects.insert(img.root.digest);
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& r : all) {
      if (!subjects.contains(r.subject) || std::find(out.begin(), out.end(), &r) != out.end()) continue;
      out.push_back(&r);
      grew = subjects.insert(r.manifest.digest).second || grew;
    }
  }
  return out;
}

// The manifests an index root names (none for an image).
Result<std::set<oci::Digest>> children_of(oci::Store& bundle, const BundleImage& img) {
  std::set<oci::Digest> children;
  if (!oci::media::is_index(img.root.media_type)) return children;
  STRATA_TRY(auto fetched, oci::fetch_manifest(bundle, img.root.digest.str()));
  if (const auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed))
    for (const auto& child : idx->manifests) children.insert(child.digest);
  return children;
}

// Copies the referrers the bundle index lists for `img` to `dst`, each
// checked first: its manifest names the subject its entry says.
Result<std::size_t> load_referrers(oci::Store& bundle, const std::vector<const BundleReferrer*>& mine,
                                   const BundleImage& img, oci::Store& dst, oci::CopySession& session,
                                   const oci::CopyOptions& image_copy) {
  oci::CopyOptions co = image_copy;
  co.all = true;
  co.referrers = false;  // exactly what the index lists
  co.pin.reset();
  std::size_t n = 0;
  for (const auto* r : mine) {
    const std::string what = "bundle referrer " + r->manifest.digest.str() + " of " + img.name;
    STRATA_TRY(auto fetched, with_context(oci::fetch_manifest(bundle, r->manifest.digest.str()), what));
    const auto subject = std::visit([](const auto& m) { return m.subject; }, fetched.parsed);
    if (!subject || subject->digest != r->subject)
      return fail(ErrorCode::kCorruption, what + ": its manifest names " +
                                              (subject ? subject->digest.str() : std::string("no subject")) +
                                              ", its entry " + r->subject.str() + "; nothing of it was loaded");
    auto copied = session.copy(bundle, r->manifest.digest.str(), dst, std::nullopt, co);
    if (!copied) return fail(copied.error().context(what));
    ++n;
  }
  return n;
}

Result<std::unique_ptr<oci::Store>> open_bundle(const stdfs::path& path) {
  std::error_code ec;
  if (stdfs::is_directory(path, ec)) {
    auto layout = oci::LayoutStore::open(path, oci::LayoutMode::kReadOnly);
    if (!layout) {
      return fail(ErrorCode::kInvalidArgument, "bundle " + path.string() + " is not a bundle: " +
                                                   layout.error().message() +
                                                   "; give the directory or .tar that 'strata bundle create' wrote");
    }
    return std::unique_ptr<oci::Store>(std::move(*layout));
  }
  if (!stdfs::exists(path, ec)) {
    return fail(ErrorCode::kNotFound, "bundle " + path.string() +
                                          " does not exist; give the directory or .tar that 'strata bundle create' wrote");
  }
  // Opened by path, not through a reference: a file name may hold a ':'.
  auto opened = oci::ArchiveStore::open(path, oci::ArchiveFormat::kOci, oci::ArchiveMode::kRead);
  if (!opened) return fail(opened.error().context("bundle " + path.string()));
  return std::unique_ptr<oci::Store>(std::move(*opened));
}

Result<oci::Descriptor> artifact_of(oci::Store& bundle, const oci::Descriptor& entry, std::string_view type,
                                    const std::string& what) {
  auto fetched = oci::fetch_manifest(bundle, entry.digest.str());
  if (!fetched) return fail(fetched.error().context(what));
  return artifact_layer(fetched->parsed, type, what);
}

// One .deb from the bundle into the cache: streamed into debs/ingest/,
// verified, made durable, then published under its hash. Returns the bytes moved.
Result<std::uint64_t> seed_deb(oci::Store& bundle, const BundleDeb& d, const stdfs::path& home) {
  const std::string what = "bundle .deb " + d.package + " " + d.version + " " + d.architecture;
  STRATA_TRY(auto layer, artifact_of(bundle, d.manifest, kDebArtifactType, what));
  if (layer.digest.str() != "sha256:" + d.sha256 || layer.media_type != kDebMediaType) {
    return fail(ErrorCode::kCorruption, what + ": its artifact holds " + layer.digest.str() + " (" + layer.media_type +
                                            "), not the package the bundle index names (sha256:" + d.sha256 + ")");
  }
  const stdfs::path ingest = home / "debs" / "ingest" / (d.sha256 + ".load");
  const stdfs::path final_path = deb_cache_path(home, d.sha256);
  // One writer of the ingest file across processes sharing this home (a
  // load or a fetch): only bytes this load verified are renamed into place.
  STRATA_TRY_VOID(fs::make_dirs(deb_ingest_lock_path(home, d.sha256).parent_path()));
  STRATA_TRY(auto held, fs::FileLock::acquire(deb_ingest_lock_path(home, d.sha256)));
  std::error_code ec;
  if (stdfs::exists(final_path, ec)) return std::uint64_t{0};  // another process put it there meanwhile
  STRATA_TRY_VOID(fs::make_dirs(ingest.parent_path()));
  auto drop = [&](Error e) -> Result<std::uint64_t> {
    (void)fs::remove_file(ingest);  // best effort: `e` is the error, and the ingest name is rewritten from the start next time
    return fail(std::move(e));
  };
  {
    STRATA_TRY(auto file, oci::FileSink::open(ingest, oci::FileSink::Mode::kTruncate));
    oci::VerifyingSink verify(file, layer.digest, layer.size);
    if (auto got = bundle.fetch_blob(layer, verify); !got) return drop(got.error().context(what));
    if (auto ok = verify.verify(what); !ok) return drop(ok.error());
    if (auto synced = file.sync(); !synced) return drop(synced.error());
    if (auto closed = file.close(); !closed) return drop(closed.error());
  }
  if (auto made = fs::make_dirs(final_path.parent_path()); !made) return drop(made.error());
  // Never over a .deb already cached (fs::publish_file): the same bytes, kept.
  auto published = fs::publish_file(ingest, final_path);
  if (!published) return drop(published.error());
  return *published ? static_cast<std::uint64_t>(layer.size) : std::uint64_t{0};
}

// Reads and checks one lock: it parses, and every package it names is in
// the bundle. Returns its bytes.
Result<std::string> check_lock(oci::Store& bundle, const BundleLock& l, const std::set<std::string>& debs) {
  const std::string what = "bundle lock " + l.name;
  STRATA_TRY(auto layer, artifact_of(bundle, l.manifest, kLockArtifactType, what));
  STRATA_TRY(auto bytes, with_context(oci::read_blob(bundle, layer, kMaxLockBytes), what));
  STRATA_TRY(auto lock, parse_lock(bytes, what));
  for (const auto& p : lock.packages) {
    if (!debs.contains(p.sha256)) {
      return fail(ErrorCode::kCorruption, what + " names " + p.name + " " + p.version + " " + p.architecture +
                                              " (sha256 " + p.sha256 + "), which the bundle does not hold; "
                                              "create the bundle again with this lock");
    }
  }
  return bytes;
}

}  // namespace

Result<std::string> bundle_destination(const std::string& name, const std::string& dest) {
  STRATA_TRY(auto d, oci::parse_docker_reference(name));
  const std::string pinned = d.tag ? ":" + *d.tag : d.digest ? "@" + d.digest->str() : ":" + std::string(oci::kDefaultTag);
  if (dest.empty()) return "docker://" + d.name() + pinned;
  if (dest.starts_with("oci:")) {
    STRATA_TRY(auto ref, oci::parse_image_ref(dest));
    if (!ref.ref.empty()) {
      return fail(ErrorCode::kInvalidArgument, "--dest " + dest + ": a bundle's images keep their names as tags; "
                                                                  "give the layout alone (oci:DIR)");
    }
    return "oci:" + ref.path + ":" + name;
  }
  if (dest.starts_with("docker://")) {
    std::string body = dest.substr(9);
    while (!body.empty() && body.back() == '/') body.pop_back();
    if (body.empty() || body.find_first_of("@") != std::string::npos) {
      return fail(ErrorCode::kInvalidArgument, "--dest " + dest + ": give a registry, docker://HOST[/PREFIX]");
    }
    STRATA_TRY(auto target, with_context(oci::parse_image_ref("docker://" + body + "/" + d.repository + pinned),
                                         "--dest " + dest));
    return target.str();
  }
  // A runtime's own store: each image under its own name (`--dest containerd:`).
  for (std::string_view runtime : {"containerd:", "docker-daemon:", "podman:"}) {
    if (!dest.starts_with(runtime)) continue;
    if (dest.size() != runtime.size()) {
      return fail(ErrorCode::kInvalidArgument, "--dest " + dest + ": a bundle's images keep their names; give the store alone (" +
                                                   std::string(runtime) + ")");
    }
    if (runtime != "containerd:" && !d.tag) {
      return fail(ErrorCode::kInvalidArgument, "--dest " + dest + ": " + name + " is pinned by digest alone, and " +
                                                   std::string(runtime) + " keeps images by NAME:TAG; load it into containerd: or a registry");
    }
    std::string target = std::string(runtime) + d.name() + (runtime == "containerd:" ? pinned : ":" + *d.tag);
    STRATA_TRY(auto ref, with_context(oci::parse_image_ref(target), "--dest " + dest));
    return ref.str();
  }
  return fail(ErrorCode::kInvalidArgument, "--dest " + dest + ": give a registry (docker://HOST[/PREFIX]), a layout (oci:DIR) "
                                                              "or a runtime's store (containerd:, docker-daemon:, podman:)");
}

Result<BundleRef> parse_bundle_ref(std::string_view text) {
  BundleRef ref{std::filesystem::path(text), std::nullopt};
  auto at = text.rfind('@');
  if (at == std::string_view::npos || !text.substr(at + 1).starts_with("sha256:")) return ref;
  auto digest = oci::Digest::parse(text.substr(at + 1));
  if (!digest) {
    return fail(ErrorCode::kInvalidArgument, std::string(text) + ": '" + std::string(text.substr(at + 1)) +
                                                 "' is not a sha256 digest (BUNDLE@sha256:<64 hex digits>, as "
                                                 "'strata bundle create' prints it)");
  }
  ref.path = std::filesystem::path(text.substr(0, at));
  ref.index = *digest;
  return ref;
}

Result<BundleLoadReport> load_bundle(const BundleLoadRequest& r) {
  STRATA_TRY(auto bundle, open_bundle(r.bundle));
  BundleLoadReport report;
  auto raw = bundle->get_manifest(kBundleTag);
  if (!raw) {
    if (raw.error().is(ErrorCode::kNotFound)) {
      return fail(ErrorCode::kInvalidArgument, "bundle " + r.bundle.string() + " holds no " + std::string(kBundleTag) +
                                                   " index: it is an image layout or archive, not a bundle; write "
                                                   "one with 'strata bundle create'");
    }
    return fail(raw.error().context("bundle " + r.bundle.string()));
  }
  report.index = raw->descriptor;
  if (r.expect_index && raw->descriptor.digest != *r.expect_index) {
    return fail(ErrorCode::kFailedPrecondition,
                "bundle " + r.bundle.string() + " holds the bundle index " + raw->descriptor.digest.str() + ", not " +
                    r.expect_index->str() + " as asked: it is another bundle, or it was changed after "
                    "'strata bundle create'; nothing was loaded");
  }
  STRATA_TRY(auto contents, parse_bundle_index(raw->bytes, "bundle " + r.bundle.string()));
  report.locks = contents.locks;

  // Every destination is worked out before anything moves: a bad --dest
  // leaves nothing behind.
  std::vector<std::string> targets;
  for (const auto& img : contents.images) {
    STRATA_TRY(auto t, bundle_destination(img.name, r.dest));
    targets.push_back(std::move(t));
  }

  std::set<std::string> debs;
  for (const auto& d : contents.debs) debs.insert(d.sha256);
  std::vector<std::string> lock_bytes;
  for (const auto& l : contents.locks) {
    STRATA_TRY(auto bytes, check_lock(*bundle, l, debs));
    lock_bytes.push_back(std::move(bytes));
  }

  // The toolchains before anything else is seeded: one that does not
  // verify leaves the home as it was.
  STRATA_TRY(report.toolchains, seed_toolchains(*bundle, contents.toolchains, r.home));

  std::error_code ec;
  for (const auto& d : contents.debs) {
    if (stdfs::exists(deb_cache_path(r.home, d.sha256), ec)) {
      ++report.debs_present;
      continue;
    }
    STRATA_TRY(auto n, seed_deb(*bundle, d, r.home));
    ++report.debs_seeded;
    report.deb_bytes += n;
  }

  if (!r.locks_out.empty()) {
    STRATA_TRY_VOID(fs::make_dirs(r.locks_out));
    for (std::size_t i = 0; i < contents.locks.size(); ++i) {
      auto path = r.locks_out / contents.locks[i].name;
      auto have = fs::read_file(path, kMaxLockBytes);
      if (have && *have == lock_bytes[i]) continue;
      STRATA_TRY_VOID(fs::write_file_atomic(path, lock_bytes[i]));
      report.locks_written.push_back(path);
    }
  }

  // One layout destination is opened once; a registry repository per image.
  // Every destination outlives the session: it remembers where each blob
  // landed, to mount it from there for the next image.
  std::unique_ptr<oci::Store> layout;
  std::vector<std::unique_ptr<oci::Store>> repositories;
  oci::CopySession session;
  for (std::size_t i = 0; i < contents.images.size(); ++i) {
    const auto& img = contents.images[i];
    STRATA_TRY(auto ref, oci::parse_image_ref(targets[i]));
    oci::Store* owned = nullptr;
    oci::Store* dst = nullptr;
    std::optional<std::string> tag;
    if (ref.transport == oci::Transport::kOciLayout) {
      if (!layout) {
        STRATA_TRY(auto opened, with_context(oci::open_store(ref, oci::Access::kWrite, r.open), "--dest " + r.dest));
        layout = std::move(opened.store);
      }
      dst = layout.get();
      tag = img.name;
    } else {
      STRATA_TRY(auto opened, with_context(oci::open_store(ref, oci::Access::kWrite, r.open), targets[i]));
      repositories.push_back(std::move(opened.store));
      owned = dst = repositories.back().get();
      // As copy names it there: the tag, or for containerd the record
      // "NAME@sha256:…" of an image the bundle pins by digest alone (without
      // a record nothing holds the image once the write's lease ends).
      tag = oci::destination_tag(ref);
    }
    oci::CopyOptions co = r.copy;
    co.all = true;  // the bundle holds what was chosen; carry all of it
    co.pin = oci::destination_pin(ref);
    auto copied = session.copy(*bundle, img.root.digest.str(), *dst, tag, co);
    if (!copied) return fail(copied.error().context(img.name + " → " + targets[i]));
    if (copied->root.digest != img.root.digest) {
      return fail(ErrorCode::kCorruption, img.name + " → " + targets[i] + ": arrived as " +
                                              copied->root.digest.str() + ", not " + img.root.digest.str());
    }
    if (!contents.referrers.empty()) {
      STRATA_TRY(auto children, children_of(*bundle, img));
      auto mine = referrers_of(contents.referrers, img, children);
      if (dst->keeps_referrers()) {
        auto carried = load_referrers(*bundle, mine, img, *dst, session, co);
        if (!carried) {
          if (owned) (void)owned->close();  // the image is there; the error says which referrer is not
          return fail(carried.error());
        }
        report.referrers += *carried;
      } else {
        report.referrers_left += mine.size();  // a daemon's store keeps none
      }
    }
    if (owned) STRATA_TRY_VOID(owned->close());
    report.images.push_back({img, targets[i], copied->already_present});
  }
  if (layout) STRATA_TRY_VOID(layout->close());
  return report;
}

}  // namespace strata::layer
