#include "oci/tar_reader.hpp"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <unistd.h>

#include "oci/gunzip.hpp"
#include "oci/store.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci {

namespace {

// Feeds a store's push-style fetch_blob to libarchive's pull-style reader:
// a helper thread fetches into a queue of at most kMaxQueued bytes; pull()
// takes from it. The bytes are verified against the descriptor as they pass,
// and the verdict is the last thing pull() reports.
class BlobPipe {
 public:
  static constexpr std::size_t kMaxQueued = std::size_t{2} << 20;

  BlobPipe(Store& store, Descriptor desc) : store_(store), desc_(std::move(desc)) {
    thread_ = std::thread([this] { run(); });
  }
  ~BlobPipe() {
    {
      std::lock_guard lock(mu_);
      cancelled_ = true;
    }
    cv_.notify_all();
    thread_.join();
  }

  Result<std::size_t> pull(std::span<std::byte> buf) {
    if (off_ == cur_.size()) {
      std::unique_lock lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) {
        if (error_) return fail(*error_);
        return std::size_t{0};
      }
      cur_ = std::move(queue_.front());
      queue_.pop_front();
      queued_ -= cur_.size();
      off_ = 0;
      cv_.notify_all();
    }
    std::size_t n = std::min(buf.size(), cur_.size() - off_);
    std::memcpy(buf.data(), cur_.data() + off_, n);
    off_ += n;
    return n;
  }

 private:
  class QueueSink final : public ByteSink {
   public:
    explicit QueueSink(BlobPipe& pipe) : pipe_(pipe) {}
    Result<void> write(std::span<const std::byte> data) override {
      std::unique_lock lock(pipe_.mu_);
      pipe_.cv_.wait(lock, [&] { return pipe_.queued_ < kMaxQueued || pipe_.cancelled_; });
      if (pipe_.cancelled_) return fail(ErrorCode::kCancelled, "reader stopped");
      pipe_.queue_.emplace_back(reinterpret_cast<const char*>(data.data()), data.size());
      pipe_.queued_ += data.size();
      pipe_.cv_.notify_all();
      return {};
    }

   private:
    BlobPipe& pipe_;
  };

  void run() {
    QueueSink queue(*this);
    VerifyingSink verifying(queue, desc_.digest, desc_.size);
    auto r = store_.fetch_blob(desc_, verifying);
    if (r) r = verifying.verify(store_.describe() + " blob " + desc_.digest.str());
    std::lock_guard lock(mu_);
    done_ = true;
    if (!r) error_ = r.error();
    cv_.notify_all();
  }

  Store& store_;
  Descriptor desc_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::string> queue_;
  std::size_t queued_ = 0;
  bool done_ = false;
  bool cancelled_ = false;
  std::optional<Error> error_;
  std::string cur_;
  std::size_t off_ = 0;
  std::thread thread_;  // last: started after every other member exists
};

}  // namespace

struct TarReader::Impl {
  archive* a = nullptr;
  TarReader::Pull pull;  // the input, gzip already inflated (and its trailers checked)
  std::shared_ptr<std::uint64_t> raw = std::make_shared<std::uint64_t>(0);  // bytes taken from the input
  std::unique_ptr<BlobPipe> pipe;
  std::optional<Error> pull_error;
  std::array<std::byte, 64 * 1024> buf{};
  bool eof_seen = false;

  ~Impl() {
    if (a) archive_read_free(a);
  }

  static la_ssize_t read_cb(archive* ar, void* cd, const void** out) {
    auto* self = static_cast<Impl*>(cd);
    auto r = self->pull(std::span(self->buf));
    if (!r) {
      self->pull_error = r.error();
      archive_set_error(ar, EIO, "%s", r.error().message().c_str());
      return -1;
    }
    if (*r == 0) self->eof_seen = true;
    *out = self->buf.data();
    return static_cast<la_ssize_t>(*r);
  }
};

namespace {

Result<archive*> new_archive(const std::string& what) {
  archive* a = archive_read_new();
  if (!a) return fail(ErrorCode::kIoError, what + ": cannot allocate a libarchive reader");
  // Only tar, and only these compressions: no external-program filters.
  // Gzip is inflated before libarchive sees the bytes (gunzip.hpp): its own
  // gzip filter never checks a member's CRC-32 or length.
  archive_read_support_format_tar(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_bzip2(a);
  return a;
}

}  // namespace

TarReader::TarReader(std::unique_ptr<Impl> impl, std::string what, ReadLimits limits)
    : impl_(std::move(impl)), what_(std::move(what)), limits_(limits) {}

TarReader::~TarReader() = default;

Result<std::unique_ptr<TarReader>> TarReader::open(Pull pull, ReadLimits limits, std::string what) {
  auto impl = std::make_unique<Impl>();
  STRATA_TRY(impl->a, new_archive(what));
  impl->pull = gunzip_if_gzip(std::move(pull), "", impl->raw);
  Impl* raw = impl.get();
  std::unique_ptr<TarReader> r(new TarReader(std::move(impl), std::move(what), limits));
  if (archive_read_open(raw->a, raw, nullptr, &Impl::read_cb, nullptr) != ARCHIVE_OK) {
    STRATA_TRY_VOID(r->archive_error("opening"));
  }
  return r;
}

Result<std::unique_ptr<TarReader>> TarReader::open_file(const std::filesystem::path& path, ReadLimits limits) {
  int raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (raw_fd < 0) return fail(fs::io_error("cannot open", path, errno));
  std::shared_ptr<int> fd(new int(raw_fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  Pull from_file = [fd, path](std::span<std::byte> buf) -> Result<std::size_t> {
    while (true) {
      ssize_t n = ::read(*fd, buf.data(), buf.size());
      if (n >= 0) return static_cast<std::size_t>(n);
      if (errno != EINTR) return fail(fs::io_error("cannot read", path, errno));
    }
  };
  return open(std::move(from_file), limits, path.string());
}

Result<std::unique_ptr<TarReader>> TarReader::open_blob(Store& store, const Descriptor& desc, ReadLimits limits) {
  auto pipe = std::make_unique<BlobPipe>(store, desc);
  BlobPipe* p = pipe.get();
  STRATA_TRY(auto r, open([p](std::span<std::byte> buf) { return p->pull(buf); }, limits,
                          "layer " + desc.digest.str() + " from " + store.describe()));
  r->impl_->pipe = std::move(pipe);
  return r;
}

Result<void> TarReader::archive_error(std::string_view doing) {
  if (impl_->pull_error) return fail(impl_->pull_error->context(what_));
  const char* msg = archive_error_string(impl_->a);
  std::string where = current_.empty() ? std::string() : " at entry " + str::quote(current_);
  return fail(ErrorCode::kInvalidArgument, what_ + ": " + std::string(doing) + where + ": " +
                                               (msg ? msg : "unreadable archive") +
                                               " (is it a tar, tar+gzip, tar+zstd or tar+xz file?)");
}

Result<void> TarReader::check_budget() {
  auto plain = archive_filter_bytes(impl_->a, 0);
  if (plain < 0) return {};
  // What the reader produced: the tar stream, the holes of sparse files it
  // filled in, and what came after the end marker.
  auto u = static_cast<std::uint64_t>(plain) + holes_ + trailing_, c = *impl_->raw;
  std::string where = current_.empty() ? std::string() : " (at entry " + str::quote(current_) + ")";
  if (u > limits_.max_uncompressed_bytes) {
    return fail(ErrorCode::kInvalidArgument,
                what_ + ": more than " + str::human_bytes(limits_.max_uncompressed_bytes) + " uncompressed" +
                    (limits_.max_uncompressed_why.empty() ? "" : " (" + limits_.max_uncompressed_why + ")") +
                    where + "; refusing a possible decompression bomb");
  }
  if (u > limits_.ratio_grace_bytes && c > 0 && u / c > limits_.max_ratio) {
    return fail(ErrorCode::kInvalidArgument, what_ + ": expands " + std::to_string(u / c) +
                                                 "x (limit " + std::to_string(limits_.max_ratio) + "x)" +
                                                 where + "; refusing a possible decompression bomb");
  }
  return {};
}

Result<void> TarReader::drain() {
  // Skipped content still counts against the decompression budget.
  struct Discard final : ByteSink {
    Result<void> write(std::span<const std::byte>) override { return {}; }
  } discard;
  return read_data(discard);
}

namespace {

// True when a relative symlink target at `path` climbs above the root.
bool target_escapes(std::string_view path, std::string_view target) {
  if (target.starts_with('/')) return false;
  std::size_t depth = 0;
  std::string_view parent = parent_path(path);
  if (!parent.empty()) depth = str::split(parent, '/').size();
  for (std::string_view part : str::split(target, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (depth == 0) return true;
      --depth;
    } else {
      ++depth;
    }
  }
  return false;
}

}  // namespace

Result<std::optional<TarEntry>> TarReader::next() {
  STRATA_TRY_VOID(drain());
  archive_entry* ae = nullptr;
  int rc = archive_read_next_header(impl_->a, &ae);
  if (rc == ARCHIVE_EOF) {
    current_.clear();
    // Read to the end of the input: the last gzip member's trailer comes
    // after the tar's end marker, and a blob's digest and size are verified
    // once all of it has passed. What comes after the end marker still
    // counts against the decompression budget.
    while (!impl_->eof_seen) {
      auto n = impl_->pull(std::span(impl_->buf));
      if (!n) return fail(n.error().context(what_));
      if (*n == 0) break;
      trailing_ += *n;
      STRATA_TRY_VOID(check_budget());
    }
    return std::optional<TarEntry>();
  }
  if (rc < ARCHIVE_WARN) return fail(archive_error("reading a header").error());
  if (++entries_ > limits_.max_entries) {
    return fail(ErrorCode::kInvalidArgument, what_ + ": more than " + std::to_string(limits_.max_entries) +
                                                 " entries; refusing an absurd archive");
  }

  const char* raw_name = archive_entry_pathname_utf8(ae);
  if (!raw_name) raw_name = archive_entry_pathname(ae);
  std::string name = raw_name ? raw_name : "";
  current_ = name;
  auto refuse = [&](std::string why) {
    return fail(ErrorCode::kInvalidArgument, what_ + ": entry " + str::quote(name) + ": " + why);
  };
  if (name.size() > limits_.max_path_bytes) return refuse("name longer than " + std::to_string(limits_.max_path_bytes) + " bytes");
  if (!name.empty() && name.front() == '/') return refuse("absolute path; layer entries must be relative");
  auto canon = canonical_entry_path(name);
  if (!canon) return refuse("'..' component (path traversal outside the root)");
  current_ = *canon;

  TarEntry e;
  e.path = *canon;
  const char* hard = archive_entry_hardlink_utf8(ae);
  if (!hard) hard = archive_entry_hardlink(ae);
  switch (archive_entry_filetype(ae)) {
    case AE_IFREG: e.type = TarEntryType::kRegular; break;
    case AE_IFDIR: e.type = TarEntryType::kDirectory; break;
    case AE_IFLNK: e.type = TarEntryType::kSymlink; break;
    case AE_IFCHR: e.type = TarEntryType::kCharDevice; break;
    case AE_IFBLK: e.type = TarEntryType::kBlockDevice; break;
    case AE_IFIFO: e.type = TarEntryType::kFifo; break;
    case AE_IFSOCK: return refuse("sockets are not supported in layers");
    default:
      if (!hard) return refuse("unknown entry type");
  }
  if (hard) e.type = TarEntryType::kHardlink;
  if (e.path.empty() && e.type != TarEntryType::kDirectory) return refuse("the root must be a directory");

  // Writing through a symlink this archive created is how tar attacks escape.
  for (std::string_view p = parent_path(e.path); !p.empty(); p = parent_path(p)) {
    if (symlinks_.count(std::string(p))) {
      return refuse("lies below " + str::quote(p) + ", a symlink in the same archive (writing through a symlink)");
    }
  }

  std::int64_t uid = archive_entry_uid(ae), gid = archive_entry_gid(ae);
  if (uid < 0 || gid < 0) return refuse("negative uid or gid");
  e.uid = static_cast<std::uint64_t>(uid);
  e.gid = static_cast<std::uint64_t>(gid);
  e.mode = static_cast<std::uint32_t>(archive_entry_perm(ae)) & 07777u;
  e.mtime = archive_entry_mtime(ae);
  if (e.type == TarEntryType::kRegular) {
    std::int64_t size = archive_entry_size(ae);
    if (size < 0) return refuse("negative size");
    e.size = static_cast<std::uint64_t>(size);
  }
  if (e.type == TarEntryType::kCharDevice || e.type == TarEntryType::kBlockDevice) {
    e.dev_major = static_cast<std::uint32_t>(archive_entry_rdevmajor(ae));
    e.dev_minor = static_cast<std::uint32_t>(archive_entry_rdevminor(ae));
  }
  if (e.type == TarEntryType::kSymlink) {
    const char* t = archive_entry_symlink_utf8(ae);
    if (!t) t = archive_entry_symlink(ae);
    e.link_target = t ? t : "";
    if (e.link_target.empty()) return refuse("symlink with an empty target");
    if (target_escapes(e.path, e.link_target)) {
      return refuse("symlink target " + str::quote(e.link_target) + " climbs above the root (escaping symlink)");
    }
    symlinks_.insert(e.path);
  }
  if (e.type == TarEntryType::kHardlink) {
    std::string target = hard;
    if (!target.empty() && target.front() == '/') {
      return refuse("hardlink to the absolute path " + str::quote(target) + " (links out of the layer are refused)");
    }
    auto t = canonical_entry_path(target);
    if (!t || t->empty()) return refuse("hardlink target " + str::quote(target) + " escapes the root");
    if (auto seen = seen_.find(*t); seen == seen_.end() || !seen->second) {
      return refuse("hardlink to " + str::quote(*t) +
                    ", which is not an earlier file of this layer (links out of the layer are refused)");
    }
    e.link_target = *t;
  }
  for (archive_entry_xattr_reset(ae);;) {
    const char* key = nullptr;
    const void* value = nullptr;
    std::size_t len = 0;
    if (archive_entry_xattr_next(ae, &key, &value, &len) != ARCHIVE_OK) break;
    e.xattrs[key] = std::string(static_cast<const char*>(value), len);
  }
  if (auto [it, fresh] = seen_.try_emplace(e.path, e.type != TarEntryType::kDirectory); !fresh) {
    if (limits_.duplicates == DuplicatePaths::kRefuse) {
      return refuse("appears a second time in this layer (Docker's and containers/storage's layer stores refuse "
                    "that: \"duplicates of file paths not supported\")");
    }
    ++duplicate_entries_;
    if (duplicate_paths_.size() < kMaxNamedDuplicates &&
        std::find(duplicate_paths_.begin(), duplicate_paths_.end(), e.path) == duplicate_paths_.end()) {
      duplicate_paths_.push_back(e.path);
    }
    it->second = e.type != TarEntryType::kDirectory;
  }
  STRATA_TRY_VOID(check_budget());
  data_pending_ = e.type == TarEntryType::kRegular && e.size > 0;
  content_size_ = e.type == TarEntryType::kRegular ? e.size : 0;
  content_at_ = 0;
  sparse_ = archive_entry_sparse_count(ae) > 0;
  return std::optional<TarEntry>(std::move(e));
}

Result<void> TarReader::write_hole(ByteSink& sink, std::uint64_t bytes) {
  static const std::array<std::byte, 64 * 1024> kZeros{};
  while (bytes > 0) {
    std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(bytes, kZeros.size()));
    // Zeros the reader makes up are bytes it produces: they count against
    // the decompression budget like inflated ones.
    holes_ += n;
    STRATA_TRY_VOID(check_budget());
    STRATA_TRY_VOID(sink.write(std::span(kZeros.data(), n)));
    content_at_ += n;
    bytes -= n;
  }
  return {};
}

Result<void> TarReader::read_data(ByteSink& sink) {
  if (!data_pending_) return {};
  data_pending_ = false;
  while (true) {
    const void* block = nullptr;
    std::size_t size = 0;
    la_int64_t offset = 0;
    int rc = archive_read_data_block(impl_->a, &block, &size, &offset);
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) return archive_error("reading content");
    if (offset < 0 || static_cast<std::uint64_t>(offset) < content_at_ ||
        static_cast<std::uint64_t>(offset) + size > content_size_) {
      return fail(ErrorCode::kInvalidArgument, what_ + ": entry " + str::quote(current_) +
                                                   ": sparse map out of order or beyond the file's size");
    }
    // A sparse file's holes come as gaps between blocks.
    STRATA_TRY_VOID(write_hole(sink, static_cast<std::uint64_t>(offset) - content_at_));
    STRATA_TRY_VOID(check_budget());
    if (size > 0) STRATA_TRY_VOID(sink.write(std::span(static_cast<const std::byte*>(block), size)));
    content_at_ += size;
  }
  // The hole at the end of a sparse file, which is the whole file when it
  // has no data at all: GNU tar extracts it as zeros, so does this reader.
  if (sparse_ && content_at_ < content_size_) STRATA_TRY_VOID(write_hole(sink, content_size_ - content_at_));
  return {};
}

Result<std::string> TarReader::read_data_string(std::size_t limit) {
  StringSink sink(limit);
  auto r = read_data(sink);
  if (!r) {
    data_pending_ = true;  // the rest is skipped by next()
    return fail(r.error().context(what_ + ": entry " + str::quote(current_)));
  }
  return std::move(sink.str());
}

std::string describe_duplicate_paths(const TarReader& reader) {
  if (reader.duplicate_entries() == 0) return "";
  std::vector<std::string> named;
  for (const auto& p : reader.duplicate_paths()) named.push_back(p.empty() ? "/" : "/" + p);
  std::string more = reader.duplicate_entries() > named.size() ? ", …" : "";
  return reader.what() + ": " + std::to_string(reader.duplicate_entries()) +
         " entries repeat a path of the same layer (" + str::join(named, ", ") + more +
         "); Docker and podman (containers/storage) refuse to load such a layer, containerd accepts it";
}

}  // namespace strata::oci
