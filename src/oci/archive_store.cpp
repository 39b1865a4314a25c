#include "oci/archive_store.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <random>

#include "oci/docker_archive.hpp"
#include "oci/layout_tar.hpp"
#include "oci/media_types.hpp"
#include "util/env.hpp"
#include "oci/tar_reader.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {
namespace stdfs = std::filesystem;

namespace {

std::string format_name(ArchiveFormat f) { return f == ArchiveFormat::kOci ? "oci-archive" : "docker-archive"; }

// A new directory in the temporary directory `near` for a read archive's
// contents; `what` names the archive.
Result<stdfs::path> make_staging_dir(const stdfs::path& near, const std::string& what) {
  std::random_device rd;
  for (int i = 0; i < 16; ++i) {
    stdfs::path p = near / (".strata-archive-" + std::to_string(::getpid()) + "-" + std::to_string(rd() & 0xffffff));
    int err = fs::env().make_dir(p, 0700);
    if (err == 0) return p;
    if (err != EEXIST) return fail(fs::temp_dir_error(fs::io_error("cannot create directory", p, err), near, "unpacking " + what));
  }
  return fail(ErrorCode::kIoError, "unpacking " + what + ": cannot create a staging directory in " + near.string());
}

// A file being staged, as a reader's sink; a failed write is kept, so the
// error can name the staging directory (TMPDIR) rather than the archive.
struct ToFile final : ByteSink {
  fs::AtomicFile& f;
  std::optional<Error> failed;
  explicit ToFile(fs::AtomicFile& file) : f(file) {}
  Result<void> write(std::span<const std::byte> data) override {
    auto r = f.write(data);
    if (!r) failed = r.error();
    return r;
  }
};

}  // namespace

Result<void> ArchiveStore::stage_contents() {
  bool indexed = false;
  if (format_ == ArchiveFormat::kOci) {
    STRATA_TRY(indexed, index_and_stage());
  }
  if (!indexed) STRATA_TRY_VOID(extract());
  return {};
}

Result<std::unique_ptr<ArchiveStore>> ArchiveStore::open(stdfs::path file, ArchiveFormat format, ArchiveMode mode) {
  if (mode == ArchiveMode::kWrite) return open_for_write(std::move(file), format);
  std::error_code ec;
  if (!stdfs::exists(file, ec)) {
    return fail(ErrorCode::kNotFound, format_name(format) + ":" + file.string() + ": no such archive file");
  }
  // A FIFO or a directory in its place is named for what it is.
  STRATA_TRY_VOID(with_context(fs::ReadableFile::open(file), format_name(format) + ":" + file.string()));
  STRATA_TRY(auto near, fs::temp_dir());
  STRATA_TRY(auto staging, make_staging_dir(near, format_name(format) + ":" + file.string()));
  auto store = std::unique_ptr<ArchiveStore>(new ArchiveStore(std::move(file), format, mode, staging));
  STRATA_TRY_VOID(store->stage_contents());
  if (!stdfs::exists(staging / "oci-layout")) {
    if (format == ArchiveFormat::kDocker && stdfs::exists(staging / "manifest.json")) {
      STRATA_TRY(store->layout_, store->staged(LayoutStore::open(staging / "layout", LayoutMode::kCreate)));
      STRATA_TRY_VOID(import_docker_manifest_json(staging, *store->layout_, store->describe()));
      return store;
    }
    return fail(ErrorCode::kInvalidArgument, store->describe() + " is not an " + format_name(format) +
                                                 " (no oci-layout" +
                                                 (format == ArchiveFormat::kDocker ? " or manifest.json)" : ")"));
  }
  STRATA_TRY(store->layout_, store->named(LayoutStore::open(staging, LayoutMode::kReadOnly)));
  if (format == ArchiveFormat::kDocker) {
    // Docker 25+ names images with io.containerd.image.name; make those the tags.
    auto entries = store->layout_->entries();
    if (entries) {
      for (const auto& e : *entries) {
        auto it = e.annotations.find("io.containerd.image.name");
        if (it == e.annotations.end()) continue;
        auto raw = store->layout_->get_manifest(e.digest.str());
        // A tag that cannot be written into the staging layout is a disk
        // failure: the image would be missing under its name.
        if (raw) STRATA_TRY_VOID(store->named(store->layout_->put_manifest(*raw, it->second)));
      }
    }
  }
  return store;
}

namespace {

// Staging directories of the per-process form (`.strata-archive-PID-N`)
// whose process is gone: a killed writer's leftovers.
void remove_orphan_staging(const stdfs::path& dir) {
  std::error_code ec;
  for (const auto& entry : stdfs::directory_iterator(dir, ec)) {
    const std::string name = entry.path().filename().string();
    if (!name.starts_with(".strata-archive-") || !entry.is_directory(ec)) continue;
    auto rest = std::string_view(name).substr(16);
    auto pid = str::parse_u64(rest.substr(0, rest.find('-')));
    if (!pid || *pid == 0 || *pid > INT32_MAX) continue;
    if (::kill(static_cast<pid_t>(*pid), 0) == 0 || errno != ESRCH) continue;
    (void)fs::remove_tree(entry.path());  // a dead writer's leftovers: what stays is tried again by the next open
  }
}

// What the archive file was when a staging directory was seeded from it:
// size and modification time, or "none".
std::string archive_identity(const stdfs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) return "none\n";
  return std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec) + "\n";
}

// Inside the layout's own `.strata/`, which a layout being created may hold.
constexpr const char* kStagingMarker = ".strata/archive-source";

}  // namespace

Result<std::unique_ptr<ArchiveStore>> ArchiveStore::open_for_write(stdfs::path file, ArchiveFormat format) {
  const std::string what = format_name(format) + ":" + file.string();
  const stdfs::path abs = stdfs::absolute(file);
  const stdfs::path dir = abs.parent_path();
  const std::string base = abs.filename().string();
  std::error_code ec;
  if (!stdfs::is_directory(dir, ec)) return fail(ErrorCode::kNotFound, what + ": no such directory " + dir.string());
  if (stdfs::exists(abs, ec) && !stdfs::is_regular_file(abs, ec))
    return fail(ErrorCode::kInvalidArgument, what + " exists and is not a file");
  remove_orphan_staging(dir);
  // One writer per archive: an exclusive lock on a file beside it, removed
  // by its holder when done (so a lock taken on a file just removed is
  // dropped and taken again on the new one).
  const stdfs::path lock_path = dir / ("." + base + ".strata-staging.lock");
  int lock_fd = -1;
  for (int attempt = 0; attempt < 16 && lock_fd < 0; ++attempt) {
    STRATA_TRY(int fd, with_context(fs::open_for_write(lock_path, O_WRONLY | O_CREAT), what));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      int err = errno;
      ::close(fd);
      if (err == EWOULDBLOCK)
        return fail(ErrorCode::kFailedPrecondition, what + ": another strata process is writing this archive (it holds " +
                                                        lock_path.string() + "); wait for it, or write another file");
      return fail(fs::io_error(what + ": cannot lock", lock_path, err));
    }
    struct stat held {}, now {};
    if (::fstat(fd, &held) == 0 && ::stat(lock_path.c_str(), &now) == 0 && held.st_ino == now.st_ino &&
        held.st_dev == now.st_dev) {
      lock_fd = fd;
    } else {
      ::close(fd);
    }
  }
  if (lock_fd < 0) return fail(ErrorCode::kFailedPrecondition, what + ": cannot take the lock " + lock_path.string());
  const stdfs::path staging = dir / ("." + base + ".strata-staging");
  auto store = std::unique_ptr<ArchiveStore>(new ArchiveStore(std::move(file), format, ArchiveMode::kWrite, staging));
  store->lock_fd_ = lock_fd;
  store->lock_path_ = lock_path;
  // A killed run's staging is resumed when the archive is as it found it.
  const std::string identity = archive_identity(abs);
  if (stdfs::exists(staging, ec)) {
    auto marker = fs::read_file(staging / kStagingMarker, 4096);
    if (!marker || *marker != identity) STRATA_TRY_VOID(with_context(fs::remove_tree(staging), what));
    else store->changed_ = true;  // what the killed run staged is written out this time
  }
  STRATA_TRY_VOID(with_context(fs::make_dirs(staging / ".strata"), what));
  STRATA_TRY_VOID(with_context(fs::write_file_atomic(staging / kStagingMarker, identity), what));
  if (stdfs::is_regular_file(abs, ec)) {
    store->existed_ = true;
    // Add to the archive: its images stay, its blobs count as present.
    STRATA_TRY_VOID(store->stage_contents());
    if (!stdfs::exists(staging / "oci-layout")) {
      return fail(ErrorCode::kInvalidArgument,
                  what + " exists and has no oci-layout (an older docker save): strata cannot add to it; "
                         "remove it or write another file");
    }
  }
  STRATA_TRY(store->layout_, store->named(LayoutStore::open(staging, LayoutMode::kCreate)));
  return store;
}

ArchiveStore::~ArchiveStore() {
  if (archive_fd_ >= 0) ::close(archive_fd_);
  std::error_code ec;
  stdfs::remove_all(staging_, ec);
  if (lock_fd_ >= 0) {
    stdfs::remove(lock_path_, ec);  // still held: see open_for_write
    ::close(lock_fd_);
  }
}

std::string ArchiveStore::describe() const { return format_name(format_) + ":" + file_.string(); }

Error ArchiveStore::staging_error(const Error& e) const {
  if (mode_ == ArchiveMode::kWrite) return named(e);
  return fs::temp_dir_error(e, staging_.parent_path(), "unpacking " + describe());
}

Error ArchiveStore::named(const Error& e) const {
  std::string m = e.message();
  for (const std::string& from : {"oci:" + staging_.string(), staging_.string()}) {
    for (auto at = m.find(from); at != std::string::npos; at = m.find(from, at)) {
      m.replace(at, from.size(), describe());
      at += describe().size();
    }
  }
  return Error(e.code(), m);
}

Result<bool> ArchiveStore::index_and_stage() {
  STRATA_TRY(bool compressed, tar_is_compressed(file_));
  if (compressed) return false;
  auto index = index_tar(file_, describe());
  if (!index) return false;  // extraction reads it, or says what is wrong
  auto layout_file = index->members.find("oci-layout");
  if (layout_file == index->members.end() || layout_file->second.type != '0') return false;
  for (const auto& [name, m] : index->members) {
    if (m.type != '0' && m.type != '5') return false;  // links: extraction resolves them
    if (!safe_relative(name)) return false;             // extraction refuses it, naming it
  }
  STRATA_TRY(auto opened, with_context(fs::ReadableFile::open(file_), describe()));
  archive_fd_ = opened.release();
  for (const auto& [name, m] : index->members) {
    if (m.type != '0') continue;
    const bool small = m.size <= kMaxManifestBytes;
    const bool top = name.find('/') == std::string::npos;
    if (!small && top) return fail(ErrorCode::kInvalidArgument, describe() + ": " + name + " is too large");
    if (!small) continue;  // streamed from the file
    const stdfs::path dest = staging_ / name;
    std::error_code ec;
    // Resumed staging: index.json there already holds the archive's tags and more.
    if (stdfs::exists(dest, ec) && (name == "index.json" || stdfs::file_size(dest, ec) == m.size)) continue;
    STRATA_TRY_VOID(staged(fs::make_dirs(dest.parent_path())));
    STRATA_TRY(auto out, staged(fs::AtomicFile::create(dest)));
    // Its own errors are the staging directory's, not the archive's.
    ToFile sink(out);
    if (auto read = read_tar_member(archive_fd_, m, 0, sink, describe() + ": " + name); !read) {
      return fail(sink.failed ? staging_error(*sink.failed) : named(read.error()));
    }
    STRATA_TRY_VOID(staged(out.commit()));
  }
  archived_ = std::move(*index);
  return true;
}

std::optional<TarMember> ArchiveStore::archived_blob(const Descriptor& desc) const {
  if (archive_fd_ < 0) return std::nullopt;
  auto it = archived_.members.find("blobs/" + std::string(desc.digest.algorithm()) + "/" + std::string(desc.digest.hex()));
  if (it == archived_.members.end() || it->second.type != '0') return std::nullopt;
  if (desc.size >= 0 && it->second.size != static_cast<std::uint64_t>(desc.size)) return std::nullopt;
  if (it->second.size <= kMaxManifestBytes) return std::nullopt;  // staged
  return it->second;
}

Result<bool> ArchiveStore::has_blob(const Descriptor& desc) {
  if (archived_blob(desc)) return true;
  return named(layout_->has_blob(desc));
}

Result<void> ArchiveStore::fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) {
  if (auto m = archived_blob(desc)) return read_tar_member(archive_fd_, *m, offset, sink, describe() + ": blob " + desc.digest.str());
  return named(layout_->fetch_blob(desc, sink, offset));
}

namespace {

// A staging layout's blob writer whose errors name the archive.
class NamedBlobWriter final : public BlobWriter {
 public:
  NamedBlobWriter(std::unique_ptr<BlobWriter> inner, const ArchiveStore& store) : inner_(std::move(inner)), store_(store) {}
  Result<void> write(std::span<const std::byte> data) override { return store_.named(inner_->write(data)); }
  Result<void> restart() override { return store_.named(inner_->restart()); }
  std::uint64_t offset() const override { return inner_->offset(); }
  bool present() const override { return inner_->present(); }
  Result<void> commit() override { return store_.named(inner_->commit()); }
  void abort() override { inner_->abort(); }

 private:
  std::unique_ptr<BlobWriter> inner_;
  const ArchiveStore& store_;
};

}  // namespace

Result<std::unique_ptr<BlobWriter>> ArchiveStore::blob_writer(const Descriptor& desc) {
  if (mode_ != ArchiveMode::kWrite) return fail(ErrorCode::kUnsupported, describe() + " was opened for reading");
  changed_ = true;
  STRATA_TRY(auto inner, named(layout_->blob_writer(desc)));
  return std::unique_ptr<BlobWriter>(new NamedBlobWriter(std::move(inner), *this));
}

Result<std::string> ArchiveStore::normalise_tag(std::string_view ref) const {
  if (format_ != ArchiveFormat::kDocker || ref.empty() || Digest::parse(ref)) return std::string(ref);
  STRATA_TRY(auto r, with_context(parse_docker_reference(ref), describe()));
  return r.str();
}

Result<Descriptor> ArchiveStore::resolve(std::string_view ref) {
  STRATA_TRY(auto tag, normalise_tag(ref));
  return named(layout_->resolve(tag));
}

Result<RawManifest> ArchiveStore::get_manifest(std::string_view ref) {
  STRATA_TRY(auto tag, normalise_tag(ref));
  return named(layout_->get_manifest(tag));
}

Result<void> ArchiveStore::put_manifest(const RawManifest& m, std::optional<std::string_view> tag) {
  if (mode_ != ArchiveMode::kWrite) return fail(ErrorCode::kUnsupported, describe() + " was opened for reading");
  changed_ = true;
  if (tag && !tag->empty()) {
    STRATA_TRY(auto t, normalise_tag(*tag));
    return named(layout_->put_manifest(m, t));
  }
  return named(layout_->put_manifest(m, std::nullopt));
}

namespace {

// An archive unpacked into the staging directory is bounded as a layer is,
// by TarReader's budget (one implementation of the decompression-bomb
// check): past 64 MiB of output a ratio above ReadLimits::max_ratio (1000:1)
// is refused (an image archive's members are layers, compressed already,
// and JSON, so an archive compressed as a whole expands about 1:1), and the
// whole may not outgrow the free space of the staging directory's file
// system (nor ReadLimits' 64 GiB): a bomb is stopped before it fills TMPDIR,
// and an archive too large for it is refused before, not after, the disk
// is full.
constexpr std::uint64_t kExtractRatioGraceBytes = std::uint64_t{64} << 20;

ReadLimits extract_limits(const stdfs::path& staging) {
  ReadLimits limits;
  limits.ratio_grace_bytes = kExtractRatioGraceBytes;
  std::error_code ec;
  auto space = stdfs::space(staging, ec);
  if (!ec && space.available < limits.max_uncompressed_bytes) {
    limits.max_uncompressed_bytes = space.available;
    limits.max_uncompressed_why = "the free space of " + staging.parent_path().string() +
                                  ", where archives are unpacked; point TMPDIR at a larger file system";
  }
  return limits;
}

}  // namespace

Result<void> ArchiveStore::extract() {
  STRATA_TRY(auto opened, with_context(fs::ReadableFile::open(file_), describe()));
  std::shared_ptr<int> fd(new int(opened.release()), [](int* p) {
    ::close(*p);
    delete p;
  });
  TarReader::Pull from_file = [fd, path = file_](std::span<std::byte> buf) -> Result<std::size_t> {
    while (true) {
      ssize_t n = ::read(*fd, buf.data(), buf.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return fail(fs::io_error("cannot read", path, errno));
    }
  };
  // TarReader refuses absolute and ".." names, links out of the archive,
  // writing through a symlink, and decompression bombs; it inflates gzip
  // with every member's trailer checked (gunzip.hpp).
  STRATA_TRY(auto reader, TarReader::open(std::move(from_file), extract_limits(staging_), describe()));
  std::map<std::string, std::string> symlinks;   // name → target, as written
  std::map<std::string, std::string> hardlinks;  // name → an earlier member
  while (true) {
    STRATA_TRY(auto entry, reader->next());
    if (!entry) break;
    const std::string& name = entry->path;
    if (name.empty()) continue;  // the root
    if (!safe_relative(name)) {
      return fail(ErrorCode::kInvalidArgument, describe() + ": refusing archive entry " + str::quote(name) +
                                                   " (absolute or escaping path)");
    }
    const stdfs::path dest = staging_ / name;
    switch (entry->type) {
      case TarEntryType::kDirectory:
        if (auto made = fs::make_dirs(dest); !made) return fail(staging_error(made.error()));
        continue;
      case TarEntryType::kSymlink:
        // Legacy docker save links duplicate layers; remember, resolve later.
        symlinks[name] = entry->link_target;
        continue;
      case TarEntryType::kHardlink:
        hardlinks[name] = entry->link_target;
        continue;
      case TarEntryType::kRegular:
        break;
      default:
        return fail(ErrorCode::kInvalidArgument, describe() + ": refusing archive entry " + str::quote(name) +
                                                     " (only files and directories belong in an image archive)");
    }
    // Errors writing the staging directory are TMPDIR's (staging_error), not the archive's.
    if (auto made = fs::make_dirs(dest.parent_path()); !made) return fail(staging_error(made.error()));
    auto created = fs::AtomicFile::create(dest);
    if (!created) return fail(staging_error(created.error()));
    ToFile sink(*created);
    if (auto read = reader->read_data(sink); !read) {
      return fail(sink.failed ? staging_error(*sink.failed) : named(read.error()));
    }
    if (auto committed = created->commit(); !committed) return fail(staging_error(committed.error()));
  }
  // Materialise links whose targets stay inside the archive as copies:
  // symlinks first (a hardlink may name one), each checked against what
  // was staged.
  auto materialise = [&](const std::string& name, const stdfs::path& target, const std::string& shown,
                         std::string_view kind) -> Result<void> {
    if (!safe_relative(target.string()) || !stdfs::is_regular_file(staging_ / target)) {
      return fail(ErrorCode::kInvalidArgument, describe() + ": refusing " + std::string(kind) + " " + str::quote(name) +
                                                   " -> " + str::quote(shown) + " (leaves the archive or dangles)");
    }
    // Errors writing the staging directory are TMPDIR's (staging_error).
    if (auto made = fs::make_dirs((staging_ / name).parent_path()); !made) return fail(staging_error(made.error()));
    std::error_code ec;
    stdfs::copy_file(staging_ / target, staging_ / name, stdfs::copy_options::overwrite_existing, ec);
    if (ec) return fail(staging_error(fs::io_error("cannot copy " + (staging_ / target).string() + " to", staging_ / name, ec.value())));
    return {};
  };
  for (const auto& [name, target] : symlinks) {
    STRATA_TRY_VOID(materialise(name, (stdfs::path(name).parent_path() / target).lexically_normal(), target, "symlink"));
  }
  for (const auto& [name, target] : hardlinks) STRATA_TRY_VOID(materialise(name, target, target, "hardlink"));
  return {};
}

Result<void> ArchiveStore::write_tar() {
  // The one writer of a layout as a tar (layout_tar.hpp): the same images
  // give the same bytes, and the same bytes as a bundle of them.
  LayoutTarOptions options;
  options.optional_files = {"manifest.json", "repositories"};
  // Blobs an existing archive holds that were not staged come from its file.
  if (archive_fd_ >= 0) {
    for (const auto& member : archived_.members) {
      const TarMember& m = member.second;
      if (m.type != '0' || !member.first.starts_with("blobs/")) continue;
      const std::string what = describe() + ": " + member.first;
      options.extra_blobs.emplace(member.first, LayoutTarBlob{m.size, [this, m, what](ByteSink& sink) {
                                    return read_tar_member(archive_fd_, m, 0, sink, what);
                                  }});
    }
  }
  STRATA_TRY_VOID(with_context(write_layout_tar(staging_, file_, options), "writing " + describe()));
  return {};
}

Result<void> ArchiveStore::close() {
  if (closed_ || mode_ != ArchiveMode::kWrite) return {};
  closed_ = true;
  if (existed_ && !changed_) {
    // Nothing new (a re-run that found everything present): the archive stays as it is.
    std::error_code ec;
    stdfs::remove_all(staging_, ec);
    return {};
  }
  if (format_ == ArchiveFormat::kDocker) STRATA_TRY_VOID(named(write_docker_manifest_json(*layout_, staging_, describe())));
  STRATA_TRY_VOID(named(write_tar()));
  // Written: the staging goes (the lock with the store).
  std::error_code ec;
  stdfs::remove_all(staging_, ec);
  return {};
}

}  // namespace strata::oci
