#include "layer/overlay_fixture.hpp"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "support/run.hpp"
#include "support/source_dir.hpp"

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

void must(const std::string& cmd) {
  int rc = std::system(cmd.c_str());
  if (rc != 0) {
    ADD_FAILURE() << "command failed (" << rc << "): " << cmd;
    std::abort();
  }
}

}  // namespace

OverlayFixture& OverlayFixture::get() {
  static OverlayFixture* f = [] {
    auto* fx = new OverlayFixture;
    std::filesystem::path source = source_dir();
    char tmpl[] = "/tmp/strata-overlay-XXXXXX";
    fx->root_ = ::mkdtemp(tmpl);
    must("STRATA_ARCHIVE_DEFS=" + (source / "testdata/overlay").string() + " " +
         (source / "tests/support/make_archive.sh").string() + " build " + (fx->root_ / "archive/main").string() +
         " >/dev/null");
    g_gnupg = (fx->root_ / "archive/main/gnupg").string();
    must((source / "tests/support/make_overlay_base.sh").string() + " " + (fx->root_ / "base.tar").string());
    must("SOURCE_DATE_EPOCH=1700000000 STRATA_HOME=" + (fx->root_ / "home").string() + " " + strata_binary() +
         " -q import " + (fx->root_ / "base.tar").string() + " --dest oci:" + (fx->root_ / "images").string() +
         ":base --platform linux/amd64 >/dev/null");
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    pid_t pid = ::fork();
    if (pid == 0) {
      ::dup2(fds[1], 1);
      ::close(fds[0]);
      std::string server = (source / "tests/support/archive_server.py").string();
      std::string dir = (fx->root_ / "archive").string();
      ::execlp("python3", "python3", server.c_str(), dir.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    ::close(fds[1]);
    g_server = pid;
    std::atexit(stop_server);
    char buf[64] = {};
    ssize_t n = ::read(fds[0], buf, sizeof buf - 1);
    if (n <= 5 || std::sscanf(buf, "PORT %d", &fx->port_) != 1) {
      ADD_FAILURE() << "archive server did not start (python3 missing?)";
      std::abort();
    }
    fx->sources_ = fx->root_ / "overlay.list";
    std::ofstream(fx->sources_) << "deb [signed-by=" << (fx->root_ / "archive/main/keyring.gpg").string()
                                << "] http://127.0.0.1:" << fx->port_ << "/main stable main\n";
    return fx;
  }();
  return *f;
}

}  // namespace strata::testing
