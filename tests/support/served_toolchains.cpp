#include "support/served_toolchains.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/loopback_server.hpp"
#include "support/shell.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

namespace {

[[noreturn]] void fail(const std::string& what) {
  ADD_FAILURE() << what;
  std::abort();
}

// The fixture, a copy of the one built for this version of the script and
// these host tools (tests/support/cached_build.sh): building it signs with a
// fresh key and writes every release, seconds per test process otherwise.
void build(const std::filesystem::path& dir) {
  std::string support = (source_dir() / "tests/support").string();
  std::string script = support + "/toolchain_dist.py";
  auto key = shell("{ sha256sum < " + shell_quote(script) +
                   "; dpkg-query -W -f '${Package} ${Version}\\n' gpg gpg-agent python3 liblzma5 zlib1g 2>/dev/null; }"
                   " | sha256sum | cut -c1-16");
  if (key.status != 0 || key.out.size() != 17) fail("cannot key the toolchain fixture (sha256sum, dpkg-query)");
  std::string command = shell_quote(support + "/cached_build.sh") + " toolchains " + key.out.substr(0, 16) + " " +
                        shell_quote(dir.string()) + " python3 " + shell_quote(script) + " >/dev/null";
  int rc = std::system(command.c_str());
  if (rc != 0) fail("toolchain fixture build failed (" + std::to_string(rc) + "): " + command);
}

}  // namespace

ServedToolchains::ServedToolchains(std::filesystem::path dir) : dir_(std::filesystem::absolute(dir)) {
  build(dir_);
  port_ = start_loopback_server("dist_server.py", dir_, dir_ / "keys/gnupg");
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
