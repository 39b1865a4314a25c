#include "util/env.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>

namespace strata::fs {

std::string_view op_name(Op op) {
  switch (op) {
    case Op::kOpen: return "open";
    case Op::kWrite: return "write";
    case Op::kSync: return "fsync";
    case Op::kClose: return "close";
    case Op::kTruncate: return "truncate";
    case Op::kRename: return "rename";
    case Op::kRemove: return "remove";
    case Op::kLink: return "link";
    case Op::kMakeDir: return "mkdir";
    case Op::kList: return "list";
  }
  return "?";
}

namespace {

int result(int rc) { return rc == 0 ? 0 : errno; }

class PosixEnv final : public Env {
 public:
  int open(const std::filesystem::path& path, int flags, unsigned mode, int& fd) override {
    do {
      fd = ::open(path.c_str(), flags, mode);
    } while (fd < 0 && errno == EINTR);
    return fd < 0 ? errno : 0;
  }
  int write(int fd, const void* data, std::size_t size, std::size_t& written) override {
    written = 0;
    ssize_t n = ::write(fd, data, size);
    if (n < 0) return errno;
    written = static_cast<std::size_t>(n);
    return 0;
  }
  int fsync(int fd) override { return result(::fsync(fd)); }
  int close(int fd) override { return result(::close(fd)); }
  int truncate(int fd, std::uint64_t size) override { return result(::ftruncate(fd, static_cast<off_t>(size))); }
  int rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    return result(::rename(from.c_str(), to.c_str()));
  }
  int remove(const std::filesystem::path& path) override {
    if (::unlink(path.c_str()) == 0) return 0;
    if (errno != EISDIR && errno != EPERM) return errno;  // Linux says EISDIR, POSIX EPERM
    return result(::rmdir(path.c_str()));
  }
  int remove_at(int dir_fd, const std::filesystem::path& dir, const std::string& name) override {
    (void)dir;
    return result(::unlinkat(dir_fd, name.c_str(), 0));
  }
  int link(const std::filesystem::path& from, const std::filesystem::path& to) override {
    return result(::link(from.c_str(), to.c_str()));
  }
  int link_open(int fd, const std::filesystem::path& fd_path, const std::filesystem::path& to) override {
    (void)fd_path;
    // AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; the /proc link does not.
    if (::linkat(fd, "", AT_FDCWD, to.c_str(), AT_EMPTY_PATH) == 0) return 0;
    if (errno != ENOENT && errno != EPERM) return errno;
    std::string self = "/proc/self/fd/" + std::to_string(fd);
    return result(::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, to.c_str(), AT_SYMLINK_FOLLOW));
  }
  int make_dir(const std::filesystem::path& path, unsigned mode) override {
    return result(::mkdir(path.c_str(), static_cast<mode_t>(mode)));
  }
  int list(const std::filesystem::path& dir, std::vector<std::string>& names) override {
    names.clear();
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return errno;
    errno = 0;
    while (const dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    int err = errno;
    ::closedir(d);
    return err;
  }
};

std::atomic<Env*> g_env{nullptr};

}  // namespace

Env& posix_env() {
  static PosixEnv e;
  return e;
}

Env& env() {
  Env* e = g_env.load(std::memory_order_acquire);
  return e != nullptr ? *e : posix_env();
}

ScopedEnv::ScopedEnv(Env& e) : previous_(g_env.exchange(&e, std::memory_order_acq_rel)) {}

ScopedEnv::~ScopedEnv() { g_env.store(previous_, std::memory_order_release); }

}  // namespace strata::fs
