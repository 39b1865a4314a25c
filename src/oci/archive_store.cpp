#include "oci/archive_store.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "oci/docker_archive.hpp"
#include "oci/gunzip.hpp"
#include "oci/media_types.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {
namespace stdfs = std::filesystem;

namespace {

std::string format_name(ArchiveFormat f) { return f == ArchiveFormat::kOci ? "oci-archive" : "docker-archive"; }

Result<stdfs::path> make_staging_dir(const stdfs::path& near) {
  std::random_device rd;
  for (int i = 0; i < 16; ++i) {
    stdfs::path p = near / (".strata-archive-" + std::to_string(::getpid()) + "-" + std::to_string(rd() & 0xffffff));
    std::error_code ec;
    if (stdfs::create_directories(p, ec)) return p;
    if (ec && ec != std::errc::file_exists) {
      return fail(ErrorCode::kIoError, "cannot create staging directory in " + near.string() + ": " + ec.message());
    }
  }
  return fail(ErrorCode::kIoError, "cannot create a staging directory in " + near.string());
}

}  // namespace

Result<std::unique_ptr<ArchiveStore>> ArchiveStore::open(stdfs::path file, ArchiveFormat format, ArchiveMode mode) {
  std::error_code ec;
  if (mode == ArchiveMode::kRead && !stdfs::is_regular_file(file, ec)) {
    return fail(ErrorCode::kNotFound, format_name(format) + ":" + file.string() + ": no such archive file");
  }
  stdfs::path near;
  if (mode == ArchiveMode::kWrite) {
    near = stdfs::absolute(file).parent_path();
  } else {
    STRATA_TRY(near, fs::temp_dir());
  }
  STRATA_TRY(auto staging, make_staging_dir(near));
  auto store = std::unique_ptr<ArchiveStore>(new ArchiveStore(std::move(file), format, mode, staging));
  if (mode == ArchiveMode::kRead) {
    STRATA_TRY_VOID(store->extract());
    if (!stdfs::exists(staging / "oci-layout")) {
      if (format == ArchiveFormat::kDocker && stdfs::exists(staging / "manifest.json")) {
        STRATA_TRY(store->layout_, LayoutStore::open(staging / "layout", LayoutMode::kCreate));
        STRATA_TRY_VOID(import_docker_manifest_json(staging, *store->layout_, store->describe()));
        return store;
      }
      return fail(ErrorCode::kInvalidArgument, store->describe() + " is not an " + format_name(format) +
                                                   " (no oci-layout" +
                                                   (format == ArchiveFormat::kDocker ? " or manifest.json)" : ")"));
    }
  }
  STRATA_TRY(store->layout_, LayoutStore::open(staging, mode == ArchiveMode::kWrite ? LayoutMode::kCreate
                                                                                     : LayoutMode::kReadOnly));
  if (mode == ArchiveMode::kRead && format == ArchiveFormat::kDocker) {
    // Docker 25+ names images with io.containerd.image.name; make those the tags.
    auto entries = store->layout_->entries();
    if (entries) {
      for (const auto& e : *entries) {
        auto it = e.annotations.find("io.containerd.image.name");
        if (it == e.annotations.end()) continue;
        auto raw = store->layout_->get_manifest(e.digest.str());
        if (raw) (void)store->layout_->put_manifest(*raw, it->second);
      }
    }
  }
  return store;
}

ArchiveStore::~ArchiveStore() {
  std::error_code ec;
  stdfs::remove_all(staging_, ec);
}

std::string ArchiveStore::describe() const { return format_name(format_) + ":" + file_.string(); }

Result<std::string> ArchiveStore::normalise_tag(std::string_view ref) const {
  if (format_ != ArchiveFormat::kDocker || ref.empty() || Digest::parse(ref)) return std::string(ref);
  STRATA_TRY(auto r, with_context(parse_docker_reference(ref), describe()));
  return r.str();
}

Result<Descriptor> ArchiveStore::resolve(std::string_view ref) {
  STRATA_TRY(auto tag, normalise_tag(ref));
  return layout_->resolve(tag);
}

Result<RawManifest> ArchiveStore::get_manifest(std::string_view ref) {
  STRATA_TRY(auto tag, normalise_tag(ref));
  return layout_->get_manifest(tag);
}

Result<void> ArchiveStore::put_manifest(const RawManifest& m, std::optional<std::string_view> tag) {
  if (mode_ != ArchiveMode::kWrite) return fail(ErrorCode::kUnsupported, describe() + " was opened for reading");
  if (tag && !tag->empty()) {
    STRATA_TRY(auto t, normalise_tag(*tag));
    return layout_->put_manifest(m, t);
  }
  return layout_->put_manifest(m, std::nullopt);
}

namespace {

// The archive file as libarchive's input, gzip inflated here with every
// member's trailer checked (gunzip.hpp) rather than by libarchive's filter,
// which checks none.
struct ArchiveInput {
  int fd = -1;
  PullFn pull;
  std::optional<Error> error;
  std::vector<std::byte> buf = std::vector<std::byte>(1 << 16);
  bool eof = false;

  ~ArchiveInput() {
    if (fd >= 0) ::close(fd);
  }
  static la_ssize_t read(struct archive* a, void* self, const void** out) {
    auto* in = static_cast<ArchiveInput*>(self);
    auto n = in->pull(in->buf);
    if (!n) {
      in->error = n.error();
      archive_set_error(a, EIO, "%s", n.error().message().c_str());
      return -1;
    }
    if (*n == 0) in->eof = true;
    *out = in->buf.data();
    return static_cast<la_ssize_t>(*n);
  }
  // After the tar's end marker: the rest of the input, so the last gzip
  // member's trailer is checked.
  Result<void> drain() {
    while (!eof) {
      STRATA_TRY(std::size_t n, pull(buf));
      if (n == 0) eof = true;
    }
    return {};
  }
};

}  // namespace

Result<void> ArchiveStore::extract() {
  ArchiveInput input;
  input.fd = ::open(file_.c_str(), O_RDONLY | O_CLOEXEC);
  if (input.fd < 0) return fail(fs::io_error(describe() + ": cannot open", file_, errno));
  PullFn from_file = [fd = input.fd, path = file_](std::span<std::byte> buf) -> Result<std::size_t> {
    while (true) {
      ssize_t n = ::read(fd, buf.data(), buf.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return fail(fs::io_error("cannot read", path, errno));
    }
  };
  input.pull = gunzip_if_gzip(std::move(from_file), "");
  struct archive* a = archive_read_new();
  archive_read_support_format_tar(a);
  // Compressions libarchive decodes itself (no external programs); gzip is
  // inflated before it (ArchiveInput).
  archive_read_support_filter_xz(a);
  archive_read_support_filter_lzma(a);
  archive_read_support_filter_bzip2(a);
  archive_read_support_filter_zstd(a);
  auto cleanup = [&] { archive_read_free(a); };
  auto input_error = [&](std::string fallback) {
    return input.error ? input.error->message() : std::move(fallback);
  };
  if (archive_read_open(a, &input, nullptr, &ArchiveInput::read, nullptr) != ARCHIVE_OK) {
    std::string msg = input_error(archive_error_string(a) ? archive_error_string(a) : "unknown error");
    cleanup();
    return fail(ErrorCode::kInvalidArgument, describe() + ": cannot read archive: " + msg);
  }
  std::map<std::string, std::string> symlinks;
  struct archive_entry* e = nullptr;
  std::vector<char> buf(1 << 20);
  int rc;
  while ((rc = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
    std::string name = strip_dot_slash(archive_entry_pathname(e) ? archive_entry_pathname(e) : "");
    if (name.empty() || name == ".") continue;
    if (!safe_relative(name)) {
      cleanup();
      return fail(ErrorCode::kInvalidArgument, describe() + ": refusing archive entry " + str::quote(name) +
                                                   " (absolute or escaping path)");
    }
    auto type = archive_entry_filetype(e);
    stdfs::path dest = staging_ / name;
    if (type == AE_IFDIR) {
      STRATA_TRY_VOID(fs::make_dirs(dest));
      continue;
    }
    if (type == AE_IFLNK) {
      // Legacy docker save links duplicate layers; remember, resolve later.
      symlinks[name] = archive_entry_symlink(e) ? archive_entry_symlink(e) : "";
      continue;
    }
    if (type != AE_IFREG) {
      cleanup();
      return fail(ErrorCode::kInvalidArgument, describe() + ": refusing archive entry " + str::quote(name) +
                                                   " (only files and directories belong in an image archive)");
    }
    STRATA_TRY_VOID(fs::make_dirs(dest.parent_path()));
    STRATA_TRY(auto out, fs::AtomicFile::create(dest));
    while (true) {
      la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
      if (n < 0) {
        std::string msg = input_error(archive_error_string(a) ? archive_error_string(a) : "read error");
        cleanup();
        return fail(ErrorCode::kInvalidArgument, describe() + ": truncated or corrupt archive at " + name + ": " + msg);
      }
      if (n == 0) break;
      STRATA_TRY_VOID(out.write(std::as_bytes(std::span(buf.data(), static_cast<std::size_t>(n)))));
    }
    STRATA_TRY_VOID(out.commit());
  }
  if (rc != ARCHIVE_EOF) {
    std::string msg = input_error(archive_error_string(a) ? archive_error_string(a) : "read error");
    cleanup();
    return fail(ErrorCode::kInvalidArgument, describe() + ": corrupt archive: " + msg);
  }
  cleanup();
  if (auto drained = input.drain(); !drained) {
    return fail(ErrorCode::kInvalidArgument, describe() + ": corrupt archive: " + drained.error().message());
  }
  // Materialise symlinks whose targets stay inside the archive as copies.
  for (const auto& [name, target] : symlinks) {
    stdfs::path resolved = (stdfs::path(name).parent_path() / target).lexically_normal();
    if (!safe_relative(resolved.string()) || !stdfs::is_regular_file(staging_ / resolved)) {
      return fail(ErrorCode::kInvalidArgument, describe() + ": refusing symlink " + str::quote(name) + " -> " +
                                                   str::quote(target) + " (leaves the archive or dangles)");
    }
    std::error_code ec;
    stdfs::create_directories((staging_ / name).parent_path(), ec);
    stdfs::copy_file(staging_ / resolved, staging_ / name, stdfs::copy_options::overwrite_existing, ec);
    if (ec) return fail(ErrorCode::kIoError, describe() + ": cannot stage " + name + ": " + ec.message());
  }
  return {};
}

Result<void> ArchiveStore::write_tar() {
  // Deterministic member order and metadata: the same images give the same tar.
  std::vector<std::string> members;
  for (auto name : {"oci-layout", "index.json", "manifest.json", "repositories"})
    if (stdfs::exists(staging_ / name)) members.emplace_back(name);
  std::vector<std::string> blobs;
  for (const auto& alg : stdfs::directory_iterator(staging_ / "blobs")) {
    if (!alg.is_directory()) continue;
    for (const auto& b : stdfs::directory_iterator(alg.path()))
      if (b.is_regular_file()) blobs.push_back("blobs/" + alg.path().filename().string() + "/" + b.path().filename().string());
  }
  std::sort(blobs.begin(), blobs.end());

  STRATA_TRY(auto out, fs::AtomicFile::create(file_));
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_set_bytes_per_block(a, 0);  // no record padding
  std::string temp = out.temp_path().string();
  if (archive_write_open_filename(a, temp.c_str()) != ARCHIVE_OK) {
    archive_write_free(a);
    return fail(ErrorCode::kIoError, describe() + ": cannot write " + temp);
  }
  auto fail_with = [&](std::string what) -> Result<void> {
    std::string msg = archive_error_string(a) ? archive_error_string(a) : "";
    archive_write_free(a);
    return fail(ErrorCode::kIoError, describe() + ": " + what + (msg.empty() ? "" : ": " + msg));
  };
  auto add_entry = [&](const std::string& name, bool dir, std::int64_t size) -> bool {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, name.c_str());
    archive_entry_set_filetype(e, dir ? AE_IFDIR : AE_IFREG);
    archive_entry_set_perm(e, dir ? 0755 : 0644);
    archive_entry_set_size(e, dir ? 0 : size);
    archive_entry_set_mtime(e, 0, 0);
    archive_entry_set_uid(e, 0);
    archive_entry_set_gid(e, 0);
    bool ok = archive_write_header(a, e) == ARCHIVE_OK;
    archive_entry_free(e);
    return ok;
  };
  auto add_file = [&](const std::string& name) -> Result<void> {
    stdfs::path p = staging_ / name;
    std::error_code ec;
    auto size = stdfs::file_size(p, ec);
    if (ec) return fail(ErrorCode::kIoError, "cannot stat " + p.string());
    if (!add_entry(name, false, static_cast<std::int64_t>(size))) return fail(ErrorCode::kIoError, "cannot add " + name);
    return fs::read_chunks(p, [&](std::string_view piece) -> Result<void> {
      if (archive_write_data(a, piece.data(), piece.size()) != static_cast<la_ssize_t>(piece.size())) {
        return fail(ErrorCode::kIoError, "cannot write " + name);
      }
      return {};
    });
  };
  for (const auto& m : members)
    if (auto r = add_file(m); !r) return fail_with(r.error().message());
  std::set<std::string> dirs;
  for (const auto& b : blobs) {
    auto alg_dir = b.substr(0, b.rfind('/') + 1);
    if (dirs.insert("blobs/").second && !add_entry("blobs/", true, 0)) return fail_with("cannot add blobs/");
    if (dirs.insert(alg_dir).second && !add_entry(alg_dir, true, 0)) return fail_with("cannot add " + alg_dir);
    if (auto r = add_file(b); !r) return fail_with(r.error().message());
  }
  if (archive_write_close(a) != ARCHIVE_OK) return fail_with("cannot finish archive");
  archive_write_free(a);
  // libarchive wrote through its own descriptor; AtomicFile fsyncs and renames.
  return out.commit();
}

Result<void> ArchiveStore::close() {
  if (closed_ || mode_ != ArchiveMode::kWrite) return {};
  closed_ = true;
  if (format_ == ArchiveFormat::kDocker) STRATA_TRY_VOID(write_docker_manifest_json(*layout_, staging_, describe()));
  return write_tar();
}

}  // namespace strata::oci
