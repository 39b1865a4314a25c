// The toolchain fixture: each project's official distribution layout (Node
// dist and the npm registry, go.dev/dl, static.rust-lang.org,
// python-build-standalone releases) with tiny stand-in runtimes, built at
// test time by toolchain_dist.py and served over HTTP by dist_server.py until
// the test process exits. toolchain_dist.py's docstring lists the layouts,
// the variants (one defect each) and the keys; dist_server.py's the URL
// prefixes (/truncate/, /status/CODE/) and the @@BASE@@ substitution.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace strata::testing {

class ServedToolchains {
 public:
  // Puts the fixture into `dir` (a copy of the one built for this version of
  // toolchain_dist.py, tests/support/cached_build.sh), then serves `dir`.
  explicit ServedToolchains(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }
  // "http://127.0.0.1:PORT/" + path: url("node"), url("npm"), url("go/dl"),
  // url("rust"), url("python/20241016"), url("node-badsig")…
  std::string url(const std::string& path) const;
  std::filesystem::path keyring() const { return dir_ / "keys/release.asc"; }
  std::filesystem::path binary_keyring() const { return dir_ / "keys/release.gpg"; }
  std::filesystem::path wrong_keyring() const { return dir_ / "keys/wrong.asc"; }
  std::string fingerprint() const;  // the release key's, 40 upper-case hex digits
  // Requests served whose target starts with "/" + prefix (all with "").
  std::size_t requests(const std::string& prefix = "") const;
  void clear_requests() const;

 private:
  std::filesystem::path dir_;
  int port_ = 0;
};

}  // namespace strata::testing
