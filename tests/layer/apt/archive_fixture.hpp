// The signed fixture archive (tests/support/make_archive.sh) served over
// loopback HTTP by tests/support/archive_server.py. Built once per test
// binary; variants for hostile-archive cases are copies under the same
// server root. The server is stopped by PID at exit.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "support/served_archive.hpp"

namespace strata::testing {

class ArchiveFixture {
 public:
  static ArchiveFixture& get();  // builds and serves on first use (fails the test on error)
  const std::filesystem::path& root() const { return root_; }  // served directory
  std::string url(const std::string& variant = "main") const;   // http://127.0.0.1:PORT/variant
  const std::filesystem::path& keyring() const { return keyring_; }
  // Copies the pristine archive to root()/name and returns its path.
  std::filesystem::path make_variant(const std::string& name) const;
  // Re-signs dists/SUITE of a variant; `env` is prepended to the command.
  void resign(const std::string& variant, const std::string& suite, const std::string& env) const;

 private:
  std::filesystem::path root_, keyring_, script_;
  std::unique_ptr<ServedArchive> archive_;
};

}  // namespace strata::testing
