// load_bundle on hostile bundle files.
#include "layer/bundle/bundle_load.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "support/gzip_bomb.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {
namespace {

TEST(BundleLoad, RefusesAGzipBombBundleAndLeavesNothingInTmpdir) {
  testing::TempDir dir;
  const auto bundle = dir / "site.tar.gz";
  // 256 MiB of zeros in about 256 KiB: refused once past 64 MiB of output.
  testing::write_gzip_bomb(bundle, std::uint64_t{256} << 20);
  const auto tmp = dir / "tmp";
  std::filesystem::create_directories(tmp);
  std::optional<std::string> old_tmpdir;
  if (const char* t = std::getenv("TMPDIR")) old_tmpdir = t;
  ::setenv("TMPDIR", tmp.c_str(), 1);
  BundleLoadRequest r;
  r.bundle = bundle;
  r.home = dir / "home";
  r.dest = "oci:" + (dir / "images").string();
  auto loaded = load_bundle(r);
  if (old_tmpdir) ::setenv("TMPDIR", old_tmpdir->c_str(), 1);
  else ::unsetenv("TMPDIR");
  ASSERT_FALSE(loaded) << "a gzip bomb bundle loaded";
  const std::string& m = loaded.error().message();
  EXPECT_NE(m.find("bundle " + bundle.string()), std::string::npos) << m;
  EXPECT_NE(m.find("refusing a possible decompression bomb"), std::string::npos) << m;
  EXPECT_TRUE(std::filesystem::is_empty(tmp)) << "left in TMPDIR: " << std::filesystem::directory_iterator(tmp)->path();
  EXPECT_FALSE(std::filesystem::exists(dir / "images"));
}

}  // namespace
}  // namespace strata::layer
