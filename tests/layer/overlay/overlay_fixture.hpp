// The overlay fixture: a signed archive built from testdata/overlay (real
// .debs whose programs are compiled at test time), served over loopback HTTP,
// and a merged-/usr base image imported from the host's libc
// (tests/support/make_overlay_base.sh) in an OCI layout. Built once per test
// binary; the server is stopped by PID at exit.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "support/served_archive.hpp"

namespace strata::testing {

class OverlayFixture {
 public:
  static OverlayFixture& get();
  const std::filesystem::path& root() const { return root_; }
  // apt sources file for the archive (signed-by the fixture key).
  const std::filesystem::path& sources() const { return sources_; }
  // "oci:<dir>:base", the imported base image.
  std::string base_ref() const { return "oci:" + (root_ / "images").string() + ":base"; }
  std::filesystem::path images() const { return root_ / "images"; }

 private:
  std::filesystem::path root_, sources_;
  std::unique_ptr<ServedArchive> archive_;
};

// A tiny arm64 root (nothing in it is executed), and an OCI index in one
// layout holding it and the fixture's amd64 base: "oci:<dir>:multi".
std::string multi_arch_base(const std::filesystem::path& dir, const std::filesystem::path& work);

}  // namespace strata::testing
