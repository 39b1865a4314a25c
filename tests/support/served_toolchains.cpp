#include "support/served_toolchains.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <vector>

#include "support/shell.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

namespace {

struct Running {
  pid_t server;
  std::filesystem::path gnupg_home;
};

std::mutex g_mu;
std::vector<Running> g_running;

void stop_all() {
  std::lock_guard lock(g_mu);
  for (const auto& r : g_running) {
    std::string kill_agent = "GNUPGHOME=" + r.gnupg_home.string() + " gpgconf --kill gpg-agent >/dev/null 2>&1";
    if (std::system(kill_agent.c_str()) != 0) {
      // best effort: toolchain_dist.py already stopped the agent it started
    }
    ::kill(r.server, SIGTERM);
    ::waitpid(r.server, nullptr, 0);
  }
  g_running.clear();
}

[[noreturn]] void fail(const std::string& what) {
  ADD_FAILURE() << what;
  std::abort();
}

// Builds the fixture into `dir` once: an exclusive lock beside it keeps two
// test processes from building into the same place at once, and .complete
// (written last by toolchain_dist.py, its own sha256) marks a finished build
// by the script as it is now.
void build_once(const std::filesystem::path& dir) {
  std::filesystem::path named = dir.has_filename() ? dir : dir.parent_path();
  std::string lock_path = named.string() + ".lock";
  int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || ::flock(fd, LOCK_EX) != 0) fail("cannot lock " + lock_path);
  std::string script = (source_dir() / "tests/support/toolchain_dist.py").string();
  std::string digest = shell("sha256sum < " + shell_quote(script)).out.substr(0, 64);
  std::string complete;
  std::getline(std::ifstream(dir / ".complete"), complete);
  if (digest.size() != 64 || complete != digest) {
    std::string command = "python3 " + shell_quote(script) + " " + shell_quote(dir.string()) + " >/dev/null";
    int rc = std::system(command.c_str());
    if (rc != 0) fail("toolchain fixture build failed (" + std::to_string(rc) + "): " + command);
  }
  ::close(fd);  // releases the lock
}

}  // namespace

ServedToolchains::ServedToolchains(std::filesystem::path dir) : dir_(std::filesystem::absolute(dir)) {
  build_once(dir_);
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Dies with the test: a test that crashes must not leave a server
    // holding ctest's output pipe (ctest would wait for its timeout).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    std::string server = (source_dir() / "tests/support/dist_server.py").string();
    ::execlp("python3", "python3", server.c_str(), dir_.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  {
    std::lock_guard lock(g_mu);
    if (g_running.empty()) std::atexit(stop_all);
    g_running.push_back({pid, dir_ / "keys/gnupg"});
  }
  char buf[64] = {};
  ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
  // The read end stays open for the server's lifetime: closing it would make
  // any later write by the server fail with EPIPE.
  if (n <= 5 || std::sscanf(buf, "PORT %d", &port_) != 1)
    fail("toolchain dist server did not start (python3 missing?)");
}

std::string ServedToolchains::url(const std::string& path) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + path;
}

std::string ServedToolchains::fingerprint() const {
  std::ifstream in(dir_ / "keys/fingerprint");
  std::string fpr;
  std::getline(in, fpr);
  return fpr;
}

std::size_t ServedToolchains::requests(const std::string& prefix) const {
  std::ifstream in(dir_ / "requests.log");
  std::string want = "/" + prefix, line;
  std::size_t n = 0;
  while (std::getline(in, line))
    if (line.starts_with(want)) ++n;
  return n;
}

void ServedToolchains::clear_requests() const {
  // The server appends (O_APPEND): its next line lands at the new end.
  std::ofstream(dir_ / "requests.log", std::ios::trunc);
}

}  // namespace strata::testing
