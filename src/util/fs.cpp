#include "util/fs.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <random>
#include <vector>

#include "util/env.hpp"
#include "util/sha.hpp"

namespace strata::fs {

Error io_error(std::string_view what, const stdfs::path& path, int err) {
  return Error(ErrorCode::kIoError,
               std::string(what) + " " + path.string() + ": " + std::strerror(err));
}

namespace {

// What st_mode says a file is, for an error about it.
std::string_view kind_of(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

}  // namespace

Result<ReadableFile> ReadableFile::open(const stdfs::path& path) {
  // O_NONBLOCK: opening a FIFO for reading waits for a writer, forever when
  // there is none; O_NOCTTY: a terminal never becomes the controlling one.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    if (err == ENOENT) return fail(ErrorCode::kNotFound, path.string() + ": no such file");
    return fail(io_error("cannot open", path, err));
  }
  ReadableFile file(fd, 0);
  struct stat st{};
  if (::fstat(fd, &st) != 0) return fail(io_error("cannot stat", path, errno));
  if (!S_ISREG(st.st_mode)) {
    return fail(ErrorCode::kInvalidArgument, path.string() + " is not a regular file (" +
                                                 std::string(kind_of(st.st_mode)) +
                                                 "); strata reads only regular files here: put the file in its place");
  }
  // Reads of a regular file never wait whatever the flag says; clear it so
  // the descriptor behaves as a plain one wherever it goes.
  int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0) return fail(io_error("cannot set flags of", path, errno));
  file.size_ = static_cast<std::uint64_t>(st.st_size);
  return file;
}

ReadableFile& ReadableFile::operator=(ReadableFile&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
    size_ = o.size_;
  }
  return *this;
}

ReadableFile::~ReadableFile() {
  if (fd_ >= 0) ::close(fd_);
}

Result<std::string> read_file(const stdfs::path& path, std::uint64_t limit) {
  STRATA_TRY(auto file, ReadableFile::open(path));
  if (file.size() > limit) {
    return fail(ErrorCode::kInvalidArgument, path.string() + ": file is " + std::to_string(file.size()) +
                                                 " bytes, more than the limit of " + std::to_string(limit));
  }
  std::string out;
  out.resize(static_cast<std::size_t>(file.size()));
  std::size_t got = 0;
  while (true) {
    if (got == out.size()) out.resize(out.size() + 4096);
    ssize_t n = ::read(file.fd(), out.data() + got, out.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      return fail(io_error("cannot read", path, errno));
    }
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
    if (got > limit) return fail(ErrorCode::kInvalidArgument, path.string() + ": file exceeds the size limit");
  }
  out.resize(got);
  return out;
}

Result<std::string> file_sha256(const stdfs::path& path) {
  Hasher h;
  STRATA_TRY_VOID(read_chunks(path, [&](std::string_view piece) -> Result<void> {
    h.update(piece);
    return {};
  }));
  return h.finish_hex();
}

Result<void> read_chunks(const stdfs::path& path, const std::function<Result<void>(std::string_view)>& piece) {
  STRATA_TRY(auto file, ReadableFile::open(path));
  ReadBuffer buf(file.size());
  while (true) {
    ssize_t n = ::read(file.fd(), buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(io_error("cannot read", path, errno));
    if (n == 0) return {};
    STRATA_TRY_VOID(piece(std::string_view(buf.chars(), static_cast<std::size_t>(n))));
  }
}

Result<stdfs::path> temp_dir() {
  for (const char* name : {"TMPDIR", "TMP", "TEMP", "TEMPDIR"}) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') continue;
    std::error_code ec;
    auto status = stdfs::status(value, ec);
    if (stdfs::is_directory(status)) return stdfs::path(value);
    std::string why = stdfs::exists(status) ? "not a directory" : "no such directory";
    return fail(ErrorCode::kInvalidArgument, std::string(name) + "=" + value + ": " + why + "; set " + name +
                                                 " to a writable directory or unset it");
  }
  return stdfs::path("/tmp");
}

Error temp_dir_error(const Error& e, const stdfs::path& dir, std::string_view doing) {
  const std::string& m = e.message();
  const bool full = m.find(std::strerror(ENOSPC)) != std::string::npos || m.find(std::strerror(EDQUOT)) != std::string::npos;
  return Error(e.code(), std::string(doing) + ": the temporary directory " + dir.string() + " (TMPDIR) " +
                             (full ? "is full" : "cannot be written") + " (" + m + "); " +
                             (full ? "free space there or set TMPDIR to a directory with room"
                                   : "set TMPDIR to a writable directory"));
}

Result<void> make_dirs(const stdfs::path& dir) {
  // The missing ancestors, deepest first, then made top-down.
  std::vector<stdfs::path> missing;
  std::error_code ec;
  for (stdfs::path p = dir; !p.empty(); p = p.parent_path()) {
    auto st = stdfs::status(p, ec);
    if (stdfs::is_directory(st)) break;
    if (stdfs::exists(st)) return fail(ErrorCode::kIoError, "cannot create directory " + dir.string() + ": " +
                                                                p.string() + " is not a directory");
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    int err = env().make_dir(*it, 0755);
    if (err == EEXIST && stdfs::is_directory(*it, ec)) continue;  // made by another process meanwhile
    if (err != 0) return fail(io_error("cannot create directory", *it, err));
  }
  return {};
}

Result<int> open_for_write(const stdfs::path& path, int flags, unsigned mode) {
  int fd = -1;
  if (int err = env().open(path, flags | O_CLOEXEC, mode, fd); err != 0) {
    return fail(io_error((flags & O_CREAT) ? "cannot create" : "cannot open", path, err));
  }
  return fd;
}

Result<int> open_unnamed(const stdfs::path& dir) {
  int fd = -1;
  int err = env().open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0644, fd);
  if (err == 0) return fd;
  // Filesystems without O_TMPFILE say EOPNOTSUPP; kernels before it, EISDIR.
  if (err == EOPNOTSUPP || err == EISDIR || err == EINVAL) {
    return fail(ErrorCode::kUnsupported, dir.string() + ": the filesystem cannot create unnamed files (O_TMPFILE)");
  }
  return fail(io_error("cannot create an unnamed file in", dir, err));
}

Result<bool> link_unnamed(int fd, const stdfs::path& dir, const stdfs::path& to) {
  int err = env().link_open(fd, dir, to);
  if (err == EEXIST) return false;
  if (err != 0) return fail(io_error("cannot name a file written in " + dir.string() + " as", to, err));
  return true;
}

Result<void> sync_file(int fd, const stdfs::path& path) {
  if (int err = env().fsync(fd); err != 0) return fail(io_error("cannot fsync", path, err));
  return {};
}

Result<void> close_file(int fd, const stdfs::path& path) {
  if (int err = env().close(fd); err != 0) return fail(io_error("cannot close", path, err));
  return {};
}

Result<void> truncate_file(int fd, std::uint64_t size, const stdfs::path& path) {
  if (int err = env().truncate(fd, size); err != 0) return fail(io_error("cannot truncate", path, err));
  return {};
}

Result<void> rename_file(const stdfs::path& from, const stdfs::path& to) {
  if (int err = env().rename(from, to); err != 0) {
    return fail(io_error("cannot rename " + from.string() + " into", to, err));
  }
  return {};
}

Result<bool> publish_file(const stdfs::path& temp, const stdfs::path& final_path) {
  int err = env().link(temp, final_path);
  if (err == EPERM || err == EOPNOTSUPP) {
    // A filesystem without hard links: rename, unless the name is taken (the
    // check and the rename are not one step there; every other filesystem
    // strata writes to links).
    std::error_code ec;
    if (stdfs::exists(stdfs::symlink_status(final_path, ec))) err = EEXIST;
    else if ((err = env().rename(temp, final_path)) == 0) {
      STRATA_TRY_VOID(sync_dir(final_path.parent_path()));
      return true;
    }
  }
  if (err != 0 && err != EEXIST) return fail(io_error("cannot link " + temp.string() + " as", final_path, err));
  STRATA_TRY_VOID(remove_file(temp));
  STRATA_TRY_VOID(sync_dir(final_path.parent_path()));
  return err == 0;
}

Result<void> remove_file(const stdfs::path& path) {
  int err = env().remove(path);
  if (err != 0 && err != ENOENT) return fail(io_error("cannot remove", path, err));
  return {};
}

void mark_used(const stdfs::path& path) { (void)::utimensat(AT_FDCWD, path.c_str(), nullptr, 0); }

Result<void> remove_tree(const stdfs::path& path) {
  std::error_code ec;
  auto st = stdfs::symlink_status(path, ec);
  if (ec || !stdfs::exists(st)) return {};
  if (stdfs::is_directory(st)) {
    std::vector<std::string> names;
    if (int err = env().list(path, names); err != 0 && err != ENOENT) {
      return fail(io_error("cannot list", path, err));
    }
    for (const auto& name : names) STRATA_TRY_VOID(remove_tree(path / name));
  }
  return remove_file(path);
}

Result<void> sync_dir(const stdfs::path& dir) {
  stdfs::path p = dir.empty() ? stdfs::path(".") : dir;
  int fd = -1;
  if (int err = env().open(p, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0, fd); err != 0) {
    return fail(io_error("cannot open directory", dir, err));
  }
  int err = env().fsync(fd);
  (void)env().close(fd);
  if (err != 0 && err != EINVAL) return fail(io_error("cannot fsync directory", dir, err));
  return {};
}

static std::string random_suffix() {
  static std::atomic<unsigned> counter{0};
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return std::to_string(::getpid()) + "." + std::to_string(counter++) + "." +
         std::to_string(rng() & 0xffffff);
}

Result<AtomicFile> AtomicFile::create(const stdfs::path& final_path, unsigned mode) {
  auto dir = final_path.parent_path();
  if (!dir.empty()) STRATA_TRY_VOID(make_dirs(dir));
  stdfs::path temp = final_path;
  temp += ".tmp." + random_suffix();
  STRATA_TRY(int fd, open_for_write(temp, O_WRONLY | O_CREAT | O_EXCL, mode));
  // Apply the requested mode exactly, whatever the umask.
  ::fchmod(fd, mode);
  return AtomicFile(final_path, temp, fd);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept
    : final_(std::move(o.final_)), temp_(std::move(o.temp_)), fd_(std::exchange(o.fd_, -1)),
      owns_temp_(std::exchange(o.owns_temp_, false)) {}

AtomicFile& AtomicFile::operator=(AtomicFile&& o) noexcept {
  if (this != &o) {
    discard();
    final_ = std::move(o.final_);
    temp_ = std::move(o.temp_);
    fd_ = std::exchange(o.fd_, -1);
    owns_temp_ = std::exchange(o.owns_temp_, false);
  }
  return *this;
}

AtomicFile::~AtomicFile() { discard(); }

void AtomicFile::discard() {
  if (fd_ >= 0) {
    (void)env().close(fd_);
    fd_ = -1;
  }
  if (owns_temp_) {
    owns_temp_ = false;
    (void)remove_file(temp_);
  }
}

Result<void> write_all(int fd, std::span<const std::byte> data, const stdfs::path& path) {
  while (!data.empty()) {
    std::size_t n = 0;
    int err = env().write(fd, data.data(), data.size(), n);
    if (err == EINTR) continue;
    if (err != 0) return fail(io_error("cannot write", path, err));
    if (n == 0) return fail(io_error("cannot write", path, EIO));  // no progress: never spin
    data = data.subspan(n);
  }
  return {};
}

Result<void> AtomicFile::write(std::span<const std::byte> data) {
  if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "write after commit: " + final_.string());
  return write_all(fd_, data, temp_);
}

Result<void> AtomicFile::write(std::string_view data) {
  return write(std::as_bytes(std::span(data.data(), data.size())));
}

Result<void> AtomicFile::commit() {
  if (fd_ < 0) return fail(ErrorCode::kFailedPrecondition, "double commit: " + final_.string());
  // On any failure the temporary file goes (the destructor, or here).
  STRATA_TRY_VOID(with_context(sync_file(fd_, temp_), "writing " + final_.string()));
  int fd = std::exchange(fd_, -1);
  STRATA_TRY_VOID(with_context(close_file(fd, temp_), "writing " + final_.string()));
  STRATA_TRY_VOID(rename_file(temp_, final_));
  owns_temp_ = false;
  return sync_dir(final_.parent_path());
}

Result<void> write_file_atomic(const stdfs::path& path, std::string_view data, unsigned mode) {
  STRATA_TRY(auto f, AtomicFile::create(path, mode));
  STRATA_TRY_VOID(f.write(data));
  return f.commit();
}

namespace {
thread_local LockWaitListener* t_lock_listener = nullptr;

// Whether a process other than this one holds a lock on the file `fd` is
// open on, by /proc/locks (a flock's owner is listed by its process id,
// shared by every thread; one in another pid namespace as 0). A lock this
// process holds (another thread, another descriptor of the same file) is
// not another process's. True when it cannot tell: /proc/locks unreadable,
// or no holder listed (released meanwhile).
bool held_by_another_process(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) return true;
  std::ifstream in("/proc/locks");
  if (!in) return true;
  const long self = static_cast<long>(::getpid());
  bool listed = false;
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, kind, advisory, mode, pid, where;
    fields >> id >> kind;
    if (kind == "->") continue;  // a waiter, not a holder
    fields >> advisory >> mode >> pid >> where;
    // MAJOR:MINOR:INODE, the device numbers in hex.
    unsigned long major_no = 0, minor_no = 0, inode = 0;
    if (std::sscanf(where.c_str(), "%lx:%lx:%lu", &major_no, &minor_no, &inode) != 3) continue;
    if (inode != st.st_ino || major_no != major(st.st_dev) || minor_no != minor(st.st_dev)) continue;
    listed = true;
    if (std::strtol(pid.c_str(), nullptr, 10) != self) return true;
  }
  return !listed;
}
}  // namespace

LockWaitListener::LockWaitListener(std::function<void(const stdfs::path&)> on_wait)
    : on_wait_(std::move(on_wait)), previous_(t_lock_listener) {
  t_lock_listener = this;
}

LockWaitListener::~LockWaitListener() { t_lock_listener = previous_; }

// flock(fd, op) (LOCK_EX or LOCK_SH), blocking until granted; when another
// process holds the lock, the thread's LockWaitListener is told first.
Result<void> lock_blocking(int fd, const stdfs::path& path, int op) {
  bool told = false;
  int flags = op | LOCK_NB;  // first without blocking, to know whether to tell
  while (::flock(fd, flags) != 0) {
    if (errno == EINTR) continue;
    if (errno == EWOULDBLOCK && (flags & LOCK_NB)) {
      // Told only of another process: a thread of this one holding it is
      // no "other process" to wait for (and says so itself if it must).
      if (!told && t_lock_listener && t_lock_listener->on_wait_ && held_by_another_process(fd)) {
        t_lock_listener->on_wait_(path);
      }
      told = true;
      flags = op;
      continue;
    }
    return fail(io_error("cannot lock", path, errno));
  }
  return {};
}

namespace {

Result<int> open_lock_file(const stdfs::path& lock_path) {
  if (lock_path.has_parent_path()) STRATA_TRY_VOID(make_dirs(lock_path.parent_path()));
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return fail(io_error("cannot open lock", lock_path, errno));
  return fd;
}

Result<int> open_locked(const stdfs::path& lock_path, int op) {
  STRATA_TRY(int fd, open_lock_file(lock_path));
  if (auto locked = lock_blocking(fd, lock_path, op); !locked) {
    ::close(fd);
    return fail(locked.error());
  }
  return fd;
}

}  // namespace

Result<void> lock_exclusive(int fd, const stdfs::path& path) { return lock_blocking(fd, path, LOCK_EX); }

Result<FileLock> FileLock::acquire(const stdfs::path& lock_path) {
  STRATA_TRY(int fd, open_locked(lock_path, LOCK_EX));
  return FileLock(fd);
}

Result<FileLock> FileLock::acquire_shared(const stdfs::path& lock_path) {
  STRATA_TRY(int fd, open_locked(lock_path, LOCK_SH));
  return FileLock(fd);
}

Result<std::optional<FileLock>> FileLock::try_acquire(const stdfs::path& lock_path) {
  STRATA_TRY(int fd, open_lock_file(lock_path));
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    if (errno == EINTR) continue;
    int err = errno;
    ::close(fd);
    if (err == EWOULDBLOCK) return std::optional<FileLock>();
    return fail(io_error("cannot lock", lock_path, err));
  }
  return std::optional<FileLock>(FileLock(fd));
}

FileLock::FileLock(FileLock&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
FileLock& FileLock::operator=(FileLock&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}
FileLock::~FileLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

stdfs::path home_lease_path(const stdfs::path& home) { return home / "locks" / "gc.lock"; }

}  // namespace strata::fs
