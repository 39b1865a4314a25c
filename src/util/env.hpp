// The filesystem operations strata's durable writes go through: a seam like
// leveldb's Env. Every store and cache that commits files (the OCI layout,
// $STRATA_HOME's debs/, fragments/, indexes/, the atomic-file helpers in
// util/fs) calls these rather than the system calls, so a test can make any
// one of them fail (ENOSPC, EIO, a failed rename) and check what is left.
// Reads are not part of it: a failed read changes nothing on disk.
//
// Each operation returns 0 or the errno value of its failure; the helpers in
// util/fs turn that into an Error naming the file. The real implementation
// is POSIX; the process uses it unless a ScopedEnv installed another (tests).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace strata::fs {

// The kinds of operation, for counting and for failing the Nth of a kind.
enum class Op { kOpen, kWrite, kSync, kClose, kTruncate, kRename, kRemove, kLink, kMakeDir, kList };
std::string_view op_name(Op op);

class Env {
 public:
  virtual ~Env() = default;
  // open(2); `fd` receives the descriptor.
  virtual int open(const std::filesystem::path& path, int flags, unsigned mode, int& fd) = 0;
  // One write(2) of up to `size` bytes; `written` receives how many went out.
  virtual int write(int fd, const void* data, std::size_t size, std::size_t& written) = 0;
  virtual int fsync(int fd) = 0;
  virtual int close(int fd) = 0;
  virtual int truncate(int fd, std::uint64_t size) = 0;
  // rename(2): atomic within one filesystem.
  virtual int rename(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // Removes a file, or an empty directory.
  virtual int remove(const std::filesystem::path& path) = 0;
  // Removes the file `name` of the directory open on `dir_fd` (unlinkat(2)):
  // no component of a path is followed again, so a directory swapped for a
  // symbolic link cannot redirect it. `dir` names the directory in messages.
  virtual int remove_at(int dir_fd, const std::filesystem::path& dir, const std::string& name) = 0;
  // A hard link `to` naming the file `from`.
  virtual int link(const std::filesystem::path& from, const std::filesystem::path& to) = 0;
  // A name `to` for the file open on `fd`, which has none (opened with
  // O_TMPFILE); EEXIST when `to` is taken. `fd_path` names it in messages.
  virtual int link_open(int fd, const std::filesystem::path& fd_path, const std::filesystem::path& to) = 0;
  // mkdir(2) of one directory (EEXIST when it is there).
  virtual int make_dir(const std::filesystem::path& path, unsigned mode) = 0;
  // The names in `dir` (not "." or ".."), in no particular order.
  virtual int list(const std::filesystem::path& dir, std::vector<std::string>& names) = 0;
};

// The real filesystem.
Env& posix_env();

// The Env the process writes through: posix_env() unless a ScopedEnv is alive.
Env& env();

// Makes `e` the process's Env for the lifetime of the object; nests (the
// innermost wins). Process-wide, so the threads a store starts use it too:
// install it before the code under test runs and drop it after, never while
// another thread is writing.
class ScopedEnv {
 public:
  explicit ScopedEnv(Env& e);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  Env* previous_;
};

}  // namespace strata::fs
