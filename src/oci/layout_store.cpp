#include "oci/layout_store.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <future>
#include <set>
#include <variant>

#include "oci/media_types.hpp"
#include "util/env.hpp"
#include "util/fs.hpp"
#include "util/writeback.hpp"
#include "util/strings.hpp"

namespace strata::oci {
namespace stdfs = std::filesystem;

namespace {

constexpr std::string_view kLayoutFile = R"({"imageLayoutVersion":"1.0.0"})";
constexpr std::size_t kChunk = 1 << 20;

constexpr std::string_view kEmptyIndex =
    R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]})";

// What a creation that failed part-way leaves in the directory (it writes
// .strata/, blobs/sha256/, index.json, then oci-layout): the next creation
// goes on from it. Anything else is someone's data.
bool left_by_a_creation(const stdfs::directory_entry& e) {
  auto name = e.path().filename().string();
  std::error_code ec;
  if (name == ".strata") return true;
  if (name.starts_with("index.json.tmp.") || name.starts_with("oci-layout.tmp.")) return e.is_regular_file(ec);
  if (name == "index.json") {
    auto text = fs::read_file(e.path(), kEmptyIndex.size() + 1);
    return text && *text == kEmptyIndex;
  }
  if (name == "blobs") {
    for (const auto& f : stdfs::recursive_directory_iterator(e.path(), ec))
      if (!f.is_directory(ec)) return false;
    return !ec;
  }
  return false;
}

bool is_digest_ref(std::string_view ref) { return ref.find(':') != std::string_view::npos && Digest::parse(ref).has_value(); }

// Writes a blob into .strata/ingest/<alg>-<hex>, resuming what an interrupted
// earlier attempt left, and commits it into blobs/ on a verified commit.
//
// The ingest protocol (the same for every writer of this layout, in any
// process): the ingest file is flocked, and it is this writer's own only if,
// once the lock is held, its name still refers to the locked file and the
// file has no other name. A writer that waited for the lock while the holder
// committed finds the name gone or replaced and starts again; finding the
// blob committed meanwhile, it writes nothing (the loser of a race uses the
// winner's blob). Commit is fs::publish_file: link(2) into blobs/, which
// never replaces a committed blob, then the ingest name goes, before the lock
// is released. A holder killed between the two leaves a file with two names:
// the next writer sees that and only drops the ingest name.
class LayoutBlobWriter final : public BlobWriter {
 public:
  static Result<std::unique_ptr<LayoutBlobWriter>> open(LayoutStore& store, const Descriptor& desc) {
    auto ingest_dir = store.dir() / ".strata" / "ingest";
    STRATA_TRY_VOID(fs::make_dirs(ingest_dir));
    auto path = ingest_dir / (std::string(desc.digest.algorithm()) + "-" + std::string(desc.digest.hex()));
    auto final_path = store.blob_path(desc.digest);
    for (int round = 0;; ++round) {
      // Bounded: each round means another writer committed or dropped the
      // file while this one waited, which cannot go on without end.
      if (round == 64) {
        return fail(ErrorCode::kUnavailable, store.describe() + ": blob " + desc.digest.str() +
                                                 ": its ingest file kept changing under other writers; try again");
      }
      STRATA_TRY(int fd, fs::open_for_write(path, O_RDWR | O_CREAT | O_NOFOLLOW));
      // Another process writing the same blob holds this lock; its listener
      // (a copy's progress) hears of the wait.
      // On each failure below the descriptor is dropped: its close can lose
      // nothing (no byte was written through it), and the failure that
      // stopped the writer is the one to report.
      if (auto locked = fs::lock_exclusive(fd, path); !locked) {
        (void)fs::close_file(fd, path);
        return fail(locked.error());
      }
      struct stat held{}, named{};
      if (::fstat(fd, &held) != 0) {
        int err = errno;
        (void)fs::close_file(fd, path);
        return fail(fs::io_error("cannot stat", path, err));
      }
      bool same = ::lstat(path.c_str(), &named) == 0 && named.st_dev == held.st_dev && named.st_ino == held.st_ino;
      if (same && !S_ISREG(held.st_mode)) {
        (void)fs::close_file(fd, path);
        return fail(ErrorCode::kCorruption, path.string() + " is not a regular file; remove it and run again");
      }
      if (same && held.st_nlink > 1) {
        // Committed by a writer killed before it dropped this name. A name
        // that cannot go would come back every round: say why, not that
        // the file "kept changing".
        if (auto removed = fs::remove_file(path); !removed) {
          (void)fs::close_file(fd, path);
          return fail(removed.error());
        }
        same = false;
      }
      if (!same) {
        (void)fs::close_file(fd, path);  // another writer's file now: nothing of this one to keep
        STRATA_TRY(bool present, store.has_blob(desc));
        if (present) return std::unique_ptr<LayoutBlobWriter>(new LayoutBlobWriter(store, desc, path, -1, true));
        continue;
      }
      auto w = std::unique_ptr<LayoutBlobWriter>(new LayoutBlobWriter(store, desc, path, fd, false));
      STRATA_TRY_VOID(w->recover());
      return w;
    }
  }

  ~LayoutBlobWriter() override {
    if (fd_ >= 0) (void)fs::close_file(fd_, path_);  // keep the partial file: a rerun resumes from it
  }

  std::uint64_t offset() const override { return verifier_.bytes(); }

  bool present() const override { return present_; }

  Result<void> write(std::span<const std::byte> data) override {
    if (present_) return verifier_.update(data);  // committed by another writer: checked, not stored
    if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "write to a closed blob writer");
    std::uint64_t before = verifier_.bytes();
    STRATA_TRY_VOID(verifier_.update(data));
    auto written = fs::write_all(fd_, data, path_);
    // The file and the hash may now disagree: this writer is done (a new
    // one re-hashes what reached the file and resumes after it).
    if (!written) (void)fs::close_file(std::exchange(fd_, -1), path_);  // the write's error is the one to report
    else fs::start_writeback(fd_, before, verifier_.bytes());
    return written;
  }

  // Drops the ingest file's bytes (this attempt's and an earlier one's).
  Result<void> restart() override {
    if (present_) {
      verifier_ = DigestVerifier(desc_.digest, desc_.size);
      return {};
    }
    if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "restart of a closed blob writer");
    STRATA_TRY_VOID(fs::truncate_file(fd_, 0, path_));
    if (::lseek(fd_, 0, SEEK_SET) < 0) return fail(fs::io_error("cannot seek", path_, errno));
    verifier_ = DigestVerifier(desc_.digest, desc_.size);
    return {};
  }

  Result<void> commit() override {
    // Committed by another writer: what this one was given must still be the blob.
    if (present_) return verifier_.bytes() == 0 ? Result<void>() : verifier_.verify(store_.describe() + ": blob " + desc_.digest.str());
    if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "commit of a closed blob writer");
    auto verified = verifier_.verify(store_.describe() + ": blob " + desc_.digest.str());
    if (!verified) {
      // Bad bytes must not be resumed from: drop them. Each step is best
      // effort and the mismatch is the error: a truncate that fails is
      // covered by the removal, and bytes left anyway are re-hashed by the
      // next writer (recover), never trusted.
      (void)fs::truncate_file(fd_, 0, path_);
      (void)fs::remove_file(path_);
      (void)fs::close_file(std::exchange(fd_, -1), path_);
      return verified;
    }
    // A failure before the link keeps the verified ingest file: a rerun
    // re-hashes it and commits without downloading again.
    auto what = store_.describe() + ": committing blob " + desc_.digest.str();
    STRATA_TRY_VOID(with_context(fs::sync_file(fd_, path_), what));
    auto final_path = store_.blob_path(desc_.digest);
    STRATA_TRY_VOID(with_context(fs::make_dirs(final_path.parent_path()), what));
    // A file under the blob's name of another size is not the blob (damage,
    // or a writer that was not strata): it goes, so the verified bytes take
    // its place. No strata writer of this digest commits meanwhile: this
    // one holds the ingest lock, and the others only link where nothing is.
    if (auto present = store_.has_blob(desc_); present && !*present) {
      STRATA_TRY_VOID(with_context(fs::remove_file(final_path), what));
    }
    // The ingest name goes before the lock is released (close): a waiter
    // then finds it gone, never this file under it.
    auto published = with_context(fs::publish_file(path_, final_path), what);
    (void)fs::close_file(std::exchange(fd_, -1), final_path);  // fsynced: the bytes are safe whatever close says
    if (!published) return fail(published.error());
    return {};
  }

  void abort() override {
    if (fd_ >= 0) (void)fs::close_file(std::exchange(fd_, -1), path_);  // abandoned: the next writer re-hashes the file
  }

 private:
  LayoutBlobWriter(LayoutStore& store, Descriptor desc, stdfs::path path, int fd, bool present)
      : store_(store),
        desc_(std::move(desc)),
        path_(std::move(path)),
        fd_(fd),
        present_(present),
        verifier_(desc_.digest, desc_.size) {}

  // Re-hashes the bytes an earlier attempt left so the caller resumes after
  // them. More bytes than the blob's size means they cannot be trusted.
  Result<void> recover() {
    struct stat st{};
    if (::fstat(fd_, &st) != 0) return fail(fs::io_error("cannot stat", path_, errno));
    if (st.st_size == 0) return {};
    if (desc_.size >= 0 && st.st_size > desc_.size) {
      return fs::truncate_file(fd_, 0, path_);
    }
    fs::ReadBuffer buf(static_cast<std::uint64_t>(st.st_size), kChunk);
    std::uint64_t done = 0;
    while (done < static_cast<std::uint64_t>(st.st_size)) {
      ssize_t n = ::pread(fd_, buf.data(), buf.size(), static_cast<off_t>(done));
      if (n < 0) {
        if (errno == EINTR) continue;
        return fail(fs::io_error("cannot read", path_, errno));
      }
      if (n == 0) break;
      STRATA_TRY_VOID(verifier_.update(std::span(buf.data(), static_cast<std::size_t>(n))));
      done += static_cast<std::uint64_t>(n);
    }
    if (::lseek(fd_, 0, SEEK_END) < 0) return fail(fs::io_error("cannot seek", path_, errno));
    return {};
  }

  LayoutStore& store_;
  Descriptor desc_;
  stdfs::path path_;
  int fd_;
  bool present_;  // committed by another writer before this one got the ingest file
  DigestVerifier verifier_;
};

// Writes a blob whose digest is learned from its bytes into an unnamed file
// in .strata/ingest (O_TMPFILE), hashing as it goes; commit fsyncs it and
// links it into blobs/ under its digest. Nothing to resume and nothing to
// lock: no other process can see the file, and a killed writer leaves none.
class UnnamedLayoutBlobWriter final : public UnnamedBlobWriter {
 public:
  // nullptr when the layout's filesystem cannot make unnamed files.
  static Result<std::unique_ptr<UnnamedBlobWriter>> open(LayoutStore& store) {
    auto ingest_dir = store.dir() / ".strata" / "ingest";
    STRATA_TRY_VOID(fs::make_dirs(ingest_dir));
    auto fd = fs::open_unnamed(ingest_dir);
    if (!fd && fd.error().code() == ErrorCode::kUnsupported) return std::unique_ptr<UnnamedBlobWriter>();
    if (!fd) return fail(fd.error().context(store.describe()));
    return std::unique_ptr<UnnamedBlobWriter>(new UnnamedLayoutBlobWriter(store, std::move(ingest_dir), *fd));
  }

  ~UnnamedLayoutBlobWriter() override { abort(); }

  Result<void> write(std::span<const std::byte> data) override {
    if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "write to a closed blob writer");
    hasher_.update(data);
    if (auto written = fs::write_all(fd_, data, ingest_); !written) {
      abort();
      return written;
    }
    fs::start_writeback(fd_, size_, size_ + data.size());
    size_ += data.size();
    return {};
  }

  Result<WrittenBlob> commit() override {
    if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "commit of a closed blob writer");
    WrittenBlob blob{Digest::from_hex(HashAlgorithm::kSha256, hasher_.finish_hex()), static_cast<std::int64_t>(size_)};
    auto what = store_.describe() + ": committing blob " + blob.digest.str();
    auto final_path = store_.blob_path(blob.digest);
    Result<void> ready = with_context(fs::sync_file(fd_, ingest_), what);
    if (ready) ready = with_context(fs::make_dirs(final_path.parent_path()), what);
    // A blob already under this name is these bytes: it stays, this file goes.
    Result<bool> named = ready ? with_context(fs::link_unnamed(fd_, ingest_, final_path), what)
                               : Result<bool>(fail(ready.error()));
    int fd = std::exchange(fd_, -1);
    if (!named) {
      (void)fs::close_file(fd, ingest_);  // an unnamed file: closing it drops it; the naming's error is the one to report
      return fail(named.error());
    }
    (void)fs::close_file(fd, final_path);  // named and fsynced: the bytes are safe whatever close says
    STRATA_TRY_VOID(with_context(fs::sync_dir(final_path.parent_path()), what));
    return blob;
  }

  void abort() override {
    if (fd_ >= 0) (void)fs::close_file(std::exchange(fd_, -1), ingest_);  // an unnamed file: closing drops it
  }

 private:
  UnnamedLayoutBlobWriter(LayoutStore& store, stdfs::path ingest, int fd)
      : store_(store), ingest_(std::move(ingest)), fd_(fd) {}

  LayoutStore& store_;
  stdfs::path ingest_;  // the directory the unnamed file is in
  int fd_;
  Hasher hasher_;
  std::uint64_t size_ = 0;
};

}  // namespace

Result<std::unique_ptr<LayoutStore>> LayoutStore::open(stdfs::path dir, LayoutMode mode) {
  std::error_code ec;
  bool has_layout = stdfs::exists(dir / "oci-layout", ec);
  if (!has_layout) {
    if (mode == LayoutMode::kReadOnly) {
      return fail(ErrorCode::kNotFound, "oci:" + dir.string() + " is not an OCI image layout (no oci-layout file)");
    }
    if (stdfs::exists(dir, ec) && !stdfs::is_directory(dir, ec)) {
      return fail(ErrorCode::kInvalidArgument, "oci:" + dir.string() + " exists and is not a directory");
    }
    // Creation happens under the layout's lock, so two processes (or threads)
    // creating the same layout at once both end up with one valid layout.
    STRATA_TRY_VOID(fs::make_dirs(dir / ".strata"));
    STRATA_TRY(auto lock, fs::FileLock::acquire(dir / ".strata" / "index.lock"));
    if (!stdfs::exists(dir / "oci-layout", ec)) {
      for (const auto& entry : stdfs::directory_iterator(dir, ec)) {
        if (left_by_a_creation(entry)) continue;
        return fail(ErrorCode::kInvalidArgument,
                    "oci:" + dir.string() + " is a non-empty directory without an oci-layout file; "
                    "refusing to turn it into an image layout (name an empty or new directory)");
      }
      STRATA_TRY_VOID(fs::make_dirs(dir / "blobs" / "sha256"));
      STRATA_TRY_VOID(fs::write_file_atomic(dir / "index.json", kEmptyIndex));
      // Written last: its presence means the layout is complete.
      STRATA_TRY_VOID(fs::write_file_atomic(dir / "oci-layout", kLayoutFile));
    }
  } else {
    STRATA_TRY(auto text, fs::read_file(dir / "oci-layout", 1 << 16));
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("imageLayoutVersion")) {
      return fail(ErrorCode::kInvalidArgument, "oci:" + dir.string() + ": malformed oci-layout file");
    }
  }
  auto store = std::unique_ptr<LayoutStore>(new LayoutStore(std::move(dir)));
  // A writer holds the lease for as long as it has the layout open: a gc
  // running now is waited for, and no gc removes a blob while it writes.
  if (mode == LayoutMode::kCreate) {
    STRATA_TRY(store->lease_, fs::FileLock::acquire_shared(lease_path(store->dir_)));
  }
  return store;
}

stdfs::path LayoutStore::lease_path(const stdfs::path& dir) { return dir / ".strata" / "gc.lock"; }

std::string LayoutStore::describe() const { return "oci:" + dir_.string(); }

stdfs::path LayoutStore::blob_path(const Digest& d) const {
  return dir_ / "blobs" / std::string(d.algorithm()) / std::string(d.hex());
}

namespace {

// What identifies one version of index.json: strata replaces it by rename
// (a new inode), so an unchanged stamp is an unchanged file.
template <class Stamp>
std::optional<Stamp> stamp_of(const stdfs::path& path) {
  struct stat st{};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  Stamp s;
  s.dev = static_cast<std::uint64_t>(st.st_dev);
  s.ino = static_cast<std::uint64_t>(st.st_ino);
  s.size = static_cast<std::uint64_t>(st.st_size);
  s.mtime_ns = static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1'000'000'000 + st.st_mtim.tv_nsec;
  s.ctime_ns = static_cast<std::int64_t>(st.st_ctim.tv_sec) * 1'000'000'000 + st.st_ctim.tv_nsec;
  return s;
}

}  // namespace

Result<std::shared_ptr<const ImageIndex>> LayoutStore::read_index() {
  auto stamp = stamp_of<IndexStamp>(dir_ / "index.json");
  if (stamp) {
    std::lock_guard lock(index_mu_);
    if (index_stamp_ == stamp && index_) return index_;
  }
  STRATA_TRY(auto text, with_context(fs::read_file(dir_ / "index.json", kMaxLayoutIndexBytes), describe()));
  STRATA_TRY(auto parsed, parse_manifest(text, media::kOciIndex, describe() + "/index.json", kMaxLayoutIndexBytes));
  if (!std::holds_alternative<ImageIndex>(parsed)) {
    return fail(ErrorCode::kCorruption, describe() + "/index.json is not an image index");
  }
  auto idx = std::make_shared<const ImageIndex>(std::get<ImageIndex>(std::move(parsed)));
  if (stamp && stamp == stamp_of<IndexStamp>(dir_ / "index.json")) {  // not replaced while it was read
    std::lock_guard lock(index_mu_);
    index_stamp_ = stamp;
    index_ = idx;
  }
  return idx;
}

void LayoutStore::remember_index(const ImageIndex& idx) {
  auto stamp = stamp_of<IndexStamp>(dir_ / "index.json");
  std::lock_guard lock(index_mu_);
  index_stamp_ = stamp;
  index_ = stamp ? std::make_shared<const ImageIndex>(idx) : nullptr;
}

namespace {

// The order index.json is written in, whatever order the images arrived in
// (parallel copies finish in any order): tagged entries by tag, bytewise,
// then untagged ones (the children and referrers a tool put at the top) by
// digest; media type and size break what is left, so the same entries give
// the same bytes. Tags first: a reader scanning for names meets them first.
bool index_entry_less(const Descriptor& a, const Descriptor& b) {
  auto ta = a.ref_name(), tb = b.ref_name();
  if (ta.empty() != tb.empty()) return !ta.empty();
  if (ta != tb) return ta < tb;
  if (a.digest != b.digest) return a.digest.str() < b.digest.str();
  if (a.media_type != b.media_type) return a.media_type < b.media_type;
  return a.size < b.size;
}

}  // namespace

template <class F>
Result<void> LayoutStore::update_index(F&& mutate) {
  STRATA_TRY(auto lock, fs::FileLock::acquire(dir_ / ".strata" / "index.lock"));
  STRATA_TRY(auto current, read_index());
  ImageIndex idx = *current;
  bool changed = mutate(idx);
  if (!changed) return {};
  idx.media_type = std::string(media::kOciIndex);
  std::stable_sort(idx.manifests.begin(), idx.manifests.end(), index_entry_less);
  std::string bytes = serialize(idx);
  if (bytes.size() > kMaxLayoutIndexBytes) {
    return fail(ErrorCode::kFailedPrecondition,
                describe() + "/index.json would grow to " + std::to_string(bytes.size()) + " bytes (" +
                    std::to_string(idx.manifests.size()) + " entries), over the limit of " +
                    str::human_bytes(kMaxLayoutIndexBytes) + " strata reads back; nothing was changed. "
                    "Remove tags that are no longer needed, or use another layout");
  }
  STRATA_TRY_VOID(fs::write_file_atomic(dir_ / "index.json", bytes));
  remember_index(idx);  // under the lock: the file is the one just written
  return {};
}

Result<std::vector<Descriptor>> LayoutStore::entries() {
  STRATA_TRY(auto shared, read_index());  // shared, not copied: resolve runs once per tag
  const ImageIndex& idx = *shared;
  return idx.manifests;
}

Result<Descriptor> LayoutStore::resolve(std::string_view ref) {
  STRATA_TRY(auto shared, read_index());  // shared, not copied: resolve runs once per tag
  const ImageIndex& idx = *shared;
  if (ref.empty()) {
    if (idx.manifests.size() == 1) return idx.manifests[0];
    if (idx.manifests.empty()) return fail(ErrorCode::kNotFound, describe() + " holds no images");
    return fail(ErrorCode::kInvalidArgument, describe() + " holds " + std::to_string(idx.manifests.size()) +
                                                 " images; name one with " + describe() + ":TAG");
  }
  if (is_digest_ref(ref)) {
    auto d = *Digest::parse(ref);
    for (const auto& m : idx.manifests)
      if (m.digest == d) return m;
    // A child manifest of an index lives only in blobs/: sniff its type.
    std::error_code ec;
    auto size = stdfs::file_size(blob_path(d), ec);
    if (ec) return fail(ErrorCode::kNotFound, describe() + ": no manifest " + d.str());
    if (size > kMaxManifestBytes) return fail(ErrorCode::kInvalidArgument, describe() + ": " + d.str() + " is too large for a manifest");
    STRATA_TRY(auto bytes, fs::read_file(blob_path(d), kMaxManifestBytes));
    STRATA_TRY(auto mt, sniff_manifest_media_type(bytes, describe() + "@" + d.str()));
    Descriptor desc;
    desc.media_type = mt;
    desc.digest = d;
    desc.size = static_cast<std::int64_t>(size);
    return desc;
  }
  for (const auto& m : idx.manifests)
    if (m.ref_name() == ref) return m;
  // "TAG@DIGEST", as strata prints what it copied, built or imported (the
  // destination given, then "@sha256:…"): the digest pins the content. A tag
  // of that whole name came first (a bundle's images keep pinned names).
  if (auto at = ref.rfind('@'); at != std::string_view::npos) {
    if (auto d = Digest::parse(ref.substr(at + 1)); d && d->verifiable()) return resolve(d->str());
  }
  return fail(ErrorCode::kNotFound, describe() + ": no image tagged " + str::quote(ref));
}

Result<RawManifest> LayoutStore::get_manifest(std::string_view ref) {
  STRATA_TRY(auto desc, resolve(ref));
  STRATA_TRY(auto bytes, read_blob(*this, desc, kMaxManifestBytes));
  RawManifest raw;
  raw.bytes = std::move(bytes);
  raw.descriptor = desc;
  raw.descriptor.annotations.clear();  // index.json annotations are not part of the manifest
  raw.descriptor.platform.reset();
  return raw;
}

Result<void> LayoutStore::put_manifest(const RawManifest& m, std::optional<std::string_view> tag) {
  if (tag && tag->empty()) tag.reset();
  if (m.bytes.size() > kMaxManifestBytes) {  // get_manifest reads no more
    return fail(ErrorCode::kInvalidArgument, describe() + ": manifest " + m.descriptor.digest.str() + " is " +
                                                 std::to_string(m.bytes.size()) + " bytes, over the " +
                                                 std::to_string(kMaxManifestBytes) + "-byte manifest limit");
  }
  STRATA_TRY_VOID(write_blob(*this, m.descriptor, m.bytes));
  Descriptor entry = m.descriptor;
  entry.annotations.clear();
  if (tag) entry.annotations[std::string(kRefNameAnnotation)] = std::string(*tag);
  // A tagged index reaches its manifests: untagged top-level entries for them
  // (put before it, as a copy or a multi-platform build does) are dropped, so
  // index.json holds roots only (a gc and other tools' listings treat every
  // top-level entry as one). The children stay readable by digest (blobs/).
  std::set<Digest> children;
  if (tag && media::is_index(m.descriptor.media_type)) {
    auto parsed = parse_manifest(m.bytes, m.descriptor.media_type, describe() + "@" + m.descriptor.digest.str());
    if (parsed && std::holds_alternative<ImageIndex>(*parsed)) {
      for (const auto& c : std::get<ImageIndex>(*parsed).manifests) children.insert(c.digest);
    }
  }
  return update_index([&](ImageIndex& idx) {
    if (tag) {
      auto before = idx.manifests.size();
      std::erase_if(idx.manifests,
                    [&](const Descriptor& e) { return e.ref_name().empty() && children.contains(e.digest); });
      bool dropped = idx.manifests.size() != before;
      for (const auto& e : idx.manifests)
        if (e.ref_name() == *tag && e.digest == entry.digest) return dropped;
      std::erase_if(idx.manifests, [&](const Descriptor& e) { return e.ref_name() == *tag; });
      // An untagged entry for the same digest becomes the tagged one.
      std::erase_if(idx.manifests, [&](const Descriptor& e) { return e.digest == entry.digest && e.ref_name().empty(); });
    } else {
      for (const auto& e : idx.manifests)
        if (e.digest == entry.digest) return false;
    }
    idx.manifests.push_back(entry);
    return true;
  });
}

Result<void> LayoutStore::put_manifests(const std::vector<RawManifest>& manifests) {
  for (const auto& m : manifests) {
    if (m.bytes.size() > kMaxManifestBytes) return put_manifest(m, std::nullopt);  // its refusal
  }
  {
    std::vector<std::future<Result<void>>> writes;
    for (const auto& m : manifests)
      writes.push_back(std::async(std::launch::async | std::launch::deferred,
                                  [this, &m] { return write_blob(*this, m.descriptor, m.bytes); }));
    for (auto& w : writes) STRATA_TRY_VOID(w.get());  // an early return still waits for the others
  }
  return update_index([&](ImageIndex& idx) {
    bool changed = false;
    for (const auto& m : manifests) {
      bool listed = std::any_of(idx.manifests.begin(), idx.manifests.end(),
                                [&](const Descriptor& e) { return e.digest == m.descriptor.digest; });
      if (listed) continue;
      Descriptor entry = m.descriptor;
      entry.annotations.clear();
      idx.manifests.push_back(std::move(entry));
      changed = true;
    }
    return changed;
  });
}

Result<bool> LayoutStore::has_blob(const Descriptor& desc) {
  std::error_code ec;
  auto size = stdfs::file_size(blob_path(desc.digest), ec);
  if (ec) return false;
  // A file of the wrong size is not the blob (it cannot have been committed by
  // strata; treat it as absent so it is rewritten).
  return desc.size < 0 || size == static_cast<std::uintmax_t>(desc.size);
}

std::optional<stdfs::path> LayoutStore::blob_file(const Descriptor& desc) {
  if (!desc.digest.verifiable()) return std::nullopt;
  auto path = blob_path(desc.digest);
  std::error_code ec;
  auto size = stdfs::file_size(path, ec);
  if (ec || (desc.size >= 0 && size != static_cast<std::uintmax_t>(desc.size))) return std::nullopt;
  return path;
}

Result<bool> LayoutStore::link_blob(const Descriptor& desc, Store& source) {
  if (!desc.digest.verifiable()) return false;
  auto file = source.blob_file(desc);
  if (!file) return false;
  stdfs::path target = blob_path(desc.digest);
  STRATA_TRY_VOID(fs::make_dirs(target.parent_path()));
  if (int err = fs::env().link(*file, target); err != 0) {
    return err == EEXIST;  // EEXIST: a concurrent writer committed it; otherwise copy
  }
  STRATA_TRY_VOID(fs::sync_dir(target.parent_path()));
  return true;
}

Result<void> LayoutStore::fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) {
  auto path = blob_path(desc.digest);
  auto opened = fs::ReadableFile::open(path);
  if (!opened) {
    if (opened.error().is(ErrorCode::kNotFound))
      return fail(ErrorCode::kNotFound, describe() + ": blob " + desc.digest.str() + " is missing");
    return fail(opened.error().context(describe() + ": blob " + desc.digest.str()));
  }
  const int fd = opened->fd();
  fs::ReadBuffer buf(opened->size() > offset ? opened->size() - offset : 0, kChunk);
  off_t pos = static_cast<off_t>(offset);
  Result<void> result;
  while (true) {
    ssize_t n = ::pread(fd, buf.data(), buf.size(), pos);
    if (n < 0) {
      if (errno == EINTR) continue;
      result = fail(fs::io_error("cannot read", path, errno));
      break;
    }
    if (n == 0) break;
    pos += n;
    result = sink.write(std::span(buf.data(), static_cast<std::size_t>(n)));
    if (!result) break;
  }
  return result;
}

Result<std::unique_ptr<BlobWriter>> LayoutStore::blob_writer(const Descriptor& desc) {
  if (!desc.digest.verifiable()) {
    return fail(ErrorCode::kUnsupported, describe() + ": cannot store blob " + desc.digest.str() +
                                             ": its digest algorithm cannot be verified");
  }
  STRATA_TRY(auto w, LayoutBlobWriter::open(*this, desc));
  return std::unique_ptr<BlobWriter>(std::move(w));
}

Result<std::unique_ptr<UnnamedBlobWriter>> LayoutStore::unnamed_blob_writer() {
  return UnnamedLayoutBlobWriter::open(*this);
}

Result<std::vector<std::string>> LayoutStore::list_tags() {
  STRATA_TRY(auto shared, read_index());  // shared, not copied: resolve runs once per tag
  const ImageIndex& idx = *shared;
  std::vector<std::string> tags;
  for (const auto& m : idx.manifests)
    if (auto t = m.ref_name(); !t.empty()) tags.push_back(t);
  std::sort(tags.begin(), tags.end());
  return tags;
}

Result<void> LayoutStore::delete_manifest(const Digest& digest) {
  bool found = false;
  STRATA_TRY_VOID(update_index([&](ImageIndex& idx) {
    auto n = std::erase_if(idx.manifests, [&](const Descriptor& e) { return e.digest == digest; });
    found = n > 0;
    return found;
  }));
  if (!found) return fail(ErrorCode::kNotFound, describe() + ": no manifest " + digest.str());
  return {};
}

Result<std::size_t> LayoutStore::remove_entries(const std::function<bool(const Descriptor&)>& drop) {
  std::size_t removed = 0;
  STRATA_TRY_VOID(update_index([&](ImageIndex& idx) {
    removed = std::erase_if(idx.manifests, drop);
    return removed > 0;
  }));
  return removed;
}

Result<void> LayoutStore::delete_tag(std::string_view tag) {
  bool found = false;
  STRATA_TRY_VOID(update_index([&](ImageIndex& idx) {
    found = std::erase_if(idx.manifests, [&](const Descriptor& e) { return e.ref_name() == tag; }) > 0;
    return found;
  }));
  if (!found) return fail(ErrorCode::kNotFound, describe() + ": no image tagged " + str::quote(tag));
  return {};
}

Result<ImageIndex> LayoutStore::referrers(const Digest& digest) {
  // Layouts have no referrers API: scan index.json entries for a subject
  // (the convention oras uses), then fall back to the tag schema.
  ImageIndex out;
  out.media_type = std::string(media::kOciIndex);
  STRATA_TRY(auto shared, read_index());  // shared, not copied: resolve runs once per tag
  const ImageIndex& idx = *shared;
  for (const auto& e : idx.manifests) {
    if (!media::is_manifest_or_index(e.media_type)) continue;
    auto raw = read_blob(*this, e, kMaxManifestBytes);
    if (!raw) continue;
    auto parsed = parse_manifest(*raw, e.media_type, describe());
    if (!parsed) continue;
    std::visit([&](const auto& m) {
      if (m.subject && m.subject->digest == digest) {
        Descriptor d = e;
        d.annotations = m.annotations;
        if constexpr (std::is_same_v<std::decay_t<decltype(m)>, ImageManifest>) {
          d.artifact_type = m.artifact_type ? m.artifact_type : std::optional<std::string>(m.config.media_type);
        } else {
          d.artifact_type = m.artifact_type;
        }
        out.manifests.push_back(d);
      }
    }, *parsed);
  }
  if (!out.manifests.empty()) return out;
  return Store::referrers(digest);
}

}  // namespace strata::oci
