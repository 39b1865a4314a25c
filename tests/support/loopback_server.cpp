#include "support/loopback_server.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

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
      // best effort: the agent may not have started
    }
    ::kill(r.server, SIGTERM);
    ::waitpid(r.server, nullptr, 0);
  }
  g_running.clear();
}

}  // namespace

int start_loopback_server(const std::string& script, const std::filesystem::path& dir,
                          const std::filesystem::path& gnupg_home) {
  std::string path = (source_dir() / "tests/support" / script).string();
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Dies with the test: a test that crashes must not leave a server
    // holding ctest's output pipe (ctest would wait for its timeout).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::execlp("python3", "python3", path.c_str(), dir.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  {
    std::lock_guard lock(g_mu);
    if (g_running.empty()) std::atexit(stop_all);
    g_running.push_back({pid, gnupg_home});
  }
  char buf[64] = {};
  ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
  // The read end stays open for the server's lifetime: closing it would make
  // any later write by the server fail with EPIPE.
  int port = 0;
  if (n <= 5 || std::sscanf(buf, "PORT %d", &port) != 1) {
    ADD_FAILURE() << script << " did not start (python3 missing?)";
    std::abort();
  }
  return port;
}

}  // namespace strata::testing
