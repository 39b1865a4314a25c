#include "support/served_archive.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
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

void must(const std::string& command) {
  int rc = std::system(command.c_str());
  if (rc != 0) {
    ADD_FAILURE() << "command failed (" << rc << "): " << command;
    std::abort();
  }
}

ServedArchive::ServedArchive(std::filesystem::path served, const std::filesystem::path& defs)
    : served_(std::move(served)) {
  std::filesystem::path source = source_dir();
  std::string env = defs.empty() ? "" : "STRATA_ARCHIVE_DEFS=" + defs.string() + " ";
  must(env + (source / "tests/support/make_archive.sh").string() + " build " + (served_ / "main").string() +
       " >/dev/null");
  int fds[2];
  if (::pipe(fds) != 0) std::abort();
  pid_t pid = ::fork();
  if (pid == 0) {
    // Dies with the test: a test that crashes must not leave a server
    // holding ctest's output pipe (ctest would wait for its timeout).
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    std::string server = (source / "tests/support/archive_server.py").string();
    ::execlp("python3", "python3", server.c_str(), served_.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::close(fds[1]);
  {
    std::lock_guard lock(g_mu);
    if (g_running.empty()) std::atexit(stop_all);
    g_running.push_back({pid, gnupg_home()});
  }
  char buf[64] = {};
  ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
  // The read end stays open for the server's lifetime: closing it would make
  // any later write by the server fail with EPIPE.
  if (n <= 5 || std::sscanf(buf, "PORT %d", &port_) != 1) {
    ADD_FAILURE() << "archive server did not start (python3 missing?)";
    std::abort();
  }
}

std::string ServedArchive::url(const std::string& variant) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + variant;
}

std::filesystem::path ServedArchive::write_sources(const std::filesystem::path& path) const {
  std::ofstream(path) << "deb [signed-by=" << keyring().string() << "] " << url() << " stable main\n";
  return path;
}

}  // namespace strata::testing
