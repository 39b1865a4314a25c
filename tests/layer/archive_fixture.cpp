#include "layer/archive_fixture.hpp"
#include "support/source_dir.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace strata::testing {

namespace {

pid_t g_server = 0;
std::string g_gnupg;
void stop_server() {
  if (!g_gnupg.empty()) {
    std::string cmd = "GNUPGHOME=" + g_gnupg + " gpgconf --kill gpg-agent >/dev/null 2>&1";
    if (std::system(cmd.c_str()) != 0) {
    }
  }
  if (g_server > 0) {
    ::kill(g_server, SIGTERM);
    ::waitpid(g_server, nullptr, 0);
  }
}

void run(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    ADD_FAILURE() << "command failed (" << rc << "): " << cmd;
    std::abort();
  }
}

}  // namespace

ArchiveFixture& ArchiveFixture::get() {
  static ArchiveFixture* f = [] {
    auto* fx = new ArchiveFixture;
    std::filesystem::path source = strata::testing::source_dir();
    char tmpl[] = "/tmp/strata-archive-XXXXXX";
    fx->root_ = ::mkdtemp(tmpl);
    fx->script_ = source / "tests/support/make_archive.sh";
    run(fx->script_.string() + " build " + (fx->root_ / "main").string() + " >/dev/null");
    fx->keyring_ = fx->root_ / "main/keyring.gpg";
    g_gnupg = (fx->root_ / "main/gnupg").string();
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      std::string server = (source / "tests/support/archive_server.py").string();
      ::execlp("python3", "python3", server.c_str(), fx->root_.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    g_server = pid;
    std::atexit(stop_server);
    char buf[64] = {};
    ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
    // The read end stays open for the server's lifetime: closing it would
    // make any later write by the server fail with EPIPE.
    if (n <= 5 || std::sscanf(buf, "PORT %d", &fx->port_) != 1) {
      ADD_FAILURE() << "archive server did not start (python3 missing?)";
      std::abort();
    }
    return fx;
  }();
  return *f;
}

std::string ArchiveFixture::url(const std::string& variant) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + variant;
}

std::filesystem::path ArchiveFixture::make_variant(const std::string& name) const {
  auto dst = root_ / name;
  std::filesystem::remove_all(dst);
  std::filesystem::create_directories(dst);
  for (const char* d : {"dists", "pool"})
    std::filesystem::copy(root_ / "main" / d, dst / d, std::filesystem::copy_options::recursive);
  return dst;
}

void ArchiveFixture::resign(const std::string& variant, const std::string& suite, const std::string& env) const {
  run(env + " STRATA_ARCHIVE_GNUPGHOME=" + (root_ / "main/gnupg").string() + " " + script_.string() + " release " + (root_ / variant).string() + " " + suite);
}

}  // namespace strata::testing
