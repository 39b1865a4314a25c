// Small POSIX filesystem helpers with the durability rules every store follows:
// a file becomes visible under its final name only complete and fsynced
// (AtomicFile), and processes sharing a directory coordinate with flock
// (FileLock). Every write, fsync, rename and removal goes through the
// process's fs::Env (util/env.hpp), the seam tests inject faults at. All
// functions are thread-safe; none throws. Errors name the file and the
// errno text.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

#include "util/error.hpp"

namespace strata::fs {

namespace stdfs = std::filesystem;

// A regular file open for reading: the one way strata opens a file it reads
// as a store, a cache or a configuration (a layout's blobs and index.json, an
// archive, a cache entry, a lock, a mirror job). The open never blocks and the
// file must be regular: a FIFO without a writer would otherwise hang the
// open (or the first read) forever, and a device or directory is never what
// a store holds. Refused with an error naming the file and what it is ("…
// is not a regular file (a FIFO)"); a missing file is kNotFound. Closes the
// descriptor on destruction unless released. Moves only.
class ReadableFile {
 public:
  static Result<ReadableFile> open(const stdfs::path& path);
  ReadableFile(ReadableFile&& o) noexcept : fd_(std::exchange(o.fd_, -1)), size_(o.size_) {}
  ReadableFile& operator=(ReadableFile&& o) noexcept;
  ReadableFile(const ReadableFile&) = delete;
  ReadableFile& operator=(const ReadableFile&) = delete;
  ~ReadableFile();

  int fd() const { return fd_; }
  // The size fstat(2) gave when it was opened.
  std::uint64_t size() const { return size_; }
  // The descriptor becomes the caller's to close.
  int release() { return std::exchange(fd_, -1); }

 private:
  ReadableFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// A read buffer for a copy of `left` more bytes: at most `cap` bytes (1 MiB
// by default), at least one, and not zeroed. A store read sizes its buffer to
// what it reads: a manifest of a few hundred bytes took a zeroed MiB before,
// which was most of the time `cache gc` spent walking a layout's manifests.
class ReadBuffer {
 public:
  static constexpr std::size_t kDefaultCap = std::size_t{1} << 20;
  explicit ReadBuffer(std::uint64_t left, std::size_t cap = kDefaultCap)
      : size_(static_cast<std::size_t>(std::clamp<std::uint64_t>(left, 1, cap))),
        data_(std::make_unique_for_overwrite<std::byte[]>(size_)) {}
  std::byte* data() { return data_.get(); }
  char* chars() { return reinterpret_cast<char*>(data_.get()); }
  std::size_t size() const { return size_; }

 private:
  std::size_t size_;
  std::unique_ptr<std::byte[]> data_;
};

// Reads a whole file (opened as ReadableFile). Refuses files larger than
// `limit` bytes, naming the file.
Result<std::string> read_file(const stdfs::path& path, std::uint64_t limit = UINT64_C(1) << 32);

// Reads a file (opened as ReadableFile) front to back in pieces of up to
// 1 MiB, giving each to `piece` (which may stop the read by failing). Errors
// name the file.
Result<void> read_chunks(const stdfs::path& path, const std::function<Result<void>(std::string_view)>& piece);
// The lowercase hex SHA-256 of a file's bytes, read in pieces.
Result<std::string> file_sha256(const stdfs::path& path);

// Creates `dir` and its parents (mode 0755 less umask); succeeds if it exists.
Result<void> make_dirs(const stdfs::path& dir);

// open(2) for writing (`flags` say how); the descriptor is the caller's.
Result<int> open_for_write(const stdfs::path& path, int flags, unsigned mode = 0644);
// A file without a name yet in `dir` (O_TMPFILE), open for reading and
// writing: a process that dies before naming it leaves nothing behind.
// kUnsupported when the filesystem cannot make one.
Result<int> open_unnamed(const stdfs::path& dir);
// Names the file open_unnamed made (open on `fd`, in `dir`) `to`, atomically
// and complete; false when `to` exists already (it is left as it is).
Result<bool> link_unnamed(int fd, const stdfs::path& dir, const stdfs::path& to);
// fsync(2) and close(2) of a descriptor open_for_write made; `path` names it.
Result<void> sync_file(int fd, const stdfs::path& path);
Result<void> close_file(int fd, const stdfs::path& path);
// ftruncate(2) to `size` bytes.
Result<void> truncate_file(int fd, std::uint64_t size, const stdfs::path& path);
// rename(2) `from` over `to`; the error names both.
Result<void> rename_file(const stdfs::path& from, const stdfs::path& to);
// The one way a content-addressed store commits a file (a layout's blobs, the
// .deb cache): the complete, fsynced file at `temp` gets the name `final`
// with link(2), which never replaces a name, then `temp`'s name goes and the
// directory is fsynced. True when this file became `final`; false when
// `final` was there already (another writer's commit of the same content:
// it stays, and this copy is dropped). A committed file is never overwritten
// or truncated by a later writer, whatever the timing.
Result<bool> publish_file(const stdfs::path& temp, const stdfs::path& final_path);
// Removes a file or an empty directory; a missing one is not an error.
Result<void> remove_file(const stdfs::path& path);
// Removes `path` and everything below it (never following a symlink); a
// missing one is not an error.
Result<void> remove_tree(const stdfs::path& path);

// Sets `path`'s modification (and access) time to now: a cache entry marks
// its use, so eviction by modification time is least recently used, not
// first written (atime is not relied on: noatime mounts never set it).
// Best effort: a read-only cache is still read.
void mark_used(const stdfs::path& path);

// fsyncs a directory so a rename inside it is durable.
Result<void> sync_dir(const stdfs::path& dir);

// Writes `data` to `path` atomically (temp file in the same directory, fsync,
// rename, fsync dir). Readers see the old content or the new, never a mix.
Result<void> write_file_atomic(const stdfs::path& path, std::string_view data,
                               unsigned mode = 0644);

// A file written under a temporary name and renamed into place on commit().
// Destroying an uncommitted AtomicFile (a failed commit included) removes the
// temporary file.
// Not thread-safe; one writer per instance.
class AtomicFile {
 public:
  static Result<AtomicFile> create(const stdfs::path& final_path, unsigned mode = 0644);
  AtomicFile(AtomicFile&&) noexcept;
  AtomicFile& operator=(AtomicFile&&) noexcept;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  Result<void> write(std::span<const std::byte> data);
  Result<void> write(std::string_view data);
  // fsync, rename over the final path, fsync the directory.
  Result<void> commit();
  const stdfs::path& temp_path() const { return temp_; }

 private:
  AtomicFile(stdfs::path final_path, stdfs::path temp, int fd)
      : final_(std::move(final_path)), temp_(std::move(temp)), fd_(fd), owns_temp_(true) {}
  void discard();
  stdfs::path final_;
  stdfs::path temp_;
  int fd_ = -1;
  bool owns_temp_ = false;  // the temporary file is there and ours to remove
};

// Who hears that a lock this thread needs is held by another process, before
// the thread waits for it: a command's progress says "waiting for …" rather
// than hanging silently. Installed for the calling thread for the lifetime
// of the object; nests (the innermost wins). The library never prints.
class LockWaitListener {
 public:
  explicit LockWaitListener(std::function<void(const stdfs::path& lock)> on_wait);
  ~LockWaitListener();
  LockWaitListener(const LockWaitListener&) = delete;
  LockWaitListener& operator=(const LockWaitListener&) = delete;

 private:
  // flock(fd, LOCK_EX or LOCK_SH), telling the listener before it waits.
  friend Result<void> lock_blocking(int fd, const stdfs::path& path, int op);
  std::function<void(const stdfs::path&)> on_wait_;
  LockWaitListener* previous_;
};

// Takes an exclusive flock on `fd` (the file `path`), blocking until it is
// free; when another process holds it, the thread's LockWaitListener is told
// first.
Result<void> lock_exclusive(int fd, const stdfs::path& path);

// An advisory lock (flock) on a lock file, held until destruction; the
// kernel drops it when the process dies, so a crash never leaves it held.
class FileLock {
 public:
  // Exclusive, blocking until it is free.
  static Result<FileLock> acquire(const stdfs::path& lock_path);
  // Shared (any number of holders at once, none while an exclusive one is
  // held), blocking; the thread's LockWaitListener hears of a wait first.
  static Result<FileLock> acquire_shared(const stdfs::path& lock_path);
  // Exclusive without waiting: nullopt when anyone holds it, shared or not.
  static Result<std::optional<FileLock>> try_acquire(const stdfs::path& lock_path);
  FileLock(FileLock&&) noexcept;
  FileLock& operator=(FileLock&&) noexcept;
  FileLock(const FileLock&) = delete;
  FileLock& operator=(const FileLock&) = delete;
  ~FileLock();

 private:
  explicit FileLock(int fd) : fd_(fd) {}
  int fd_ = -1;
};

// The lease on $STRATA_HOME's caches: every process that writes or reads
// them through a build (an overlay, a toolchain layer) holds it shared
// while it works; `cache gc` takes it exclusive without waiting, and leaves
// the home caches alone when it cannot.
stdfs::path home_lease_path(const stdfs::path& home);

// Writes every byte to `fd` (retrying short writes and EINTR); `path` names
// the file in the error.
Result<void> write_all(int fd, std::span<const std::byte> data, const stdfs::path& path);

// The directory for temporary files: $TMPDIR (else TMP, TEMP, TEMPDIR, the
// variables std::filesystem::temp_directory_path reads), else /tmp. A
// variable naming no directory is an error that names it and its value.
// Every temporary file or directory strata makes starts here.
Result<stdfs::path> temp_dir();

// An error `e` of writing below the temporary directory `dir` (temp_dir()) while
// `doing` ("unpacking oci-archive:x.tar"), said so the user can act on it:
// it names the directory and TMPDIR, says when the directory is full, and
// that the next step is to free space there or set TMPDIR to another
// directory. Without it, the error named a file strata made there, which
// means nothing to the user (or, renamed, a path inside their input).
Error temp_dir_error(const Error& e, const stdfs::path& dir, std::string_view doing);

// "<what> <path>: <strerror(errno)>" as an kIoError.
Error io_error(std::string_view what, const stdfs::path& path, int err);

}  // namespace strata::fs
