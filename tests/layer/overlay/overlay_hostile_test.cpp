// Hostile .debs are refused by the fragment converter with an error naming
// the package and the entry: path traversal, absolute names, writing through
// a symlink, hardlinks out of the package, truncated and oversized members.
#include <gtest/gtest.h>

#include <fstream>

#include "layer/deb/fragment.hpp"
#include "support/make_deb.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer {
namespace {

namespace stdfs = std::filesystem;
using testing::make_deb;

std::string convert_error(const stdfs::path& deb, const stdfs::path& out) {
  oci::ImageFilesystem base;
  auto rules = RewriteRules::from_base(base, 1700000000);
  EXPECT_TRUE(rules);
  stdfs::create_directories(out);
  auto r = convert_deb(deb, *rules, oci::Compression::kGzip, out, "evil_1_all.deb");
  return r ? std::string() : r.error().message();
}

TEST(HostileDeb, RefusedWithTheEntryNamed) {
  testing::TempDir t;
  struct Case {
    const char* name;
    const char* entries;
    const char* mangle;
    const char* expect;
  };
  const Case cases[] = {
      {"dotdot", "[('./usr/', 'dir'), ('./usr/../../etc/passwd', 'file', 'x')]", "", ".."},
      {"absolute", "[('/etc/passwd', 'file', 'x')]", "", "etc/passwd"},
      {"through-symlink", "[('./l', 'sym', '/'), ('./l/etc/shadow', 'file', 'x')]", "", "l/etc/shadow"},
      {"hardlink-out", "[('./a', 'hard', '../../etc/shadow')]", "", "a"},
      {"truncated", "[('./f', 'file', 'x' * 5000)]", "truncate", "evil_1_all.deb"},
      {"oversize", "[('./f', 'file', 'x' * 5000), ('./g', 'file', 'y' * 3000)]", "oversize", "evil_1_all.deb"},
  };
  for (const auto& c : cases) {
    auto deb = make_deb(t.path(), c.name, c.entries, c.mangle);
    std::string err = convert_error(deb, t / (std::string("out-") + c.name));
    EXPECT_FALSE(err.empty()) << c.name << " was accepted";
    EXPECT_NE(err.find(c.expect), std::string::npos) << c.name << ": " << err;
  }
  // The same machinery accepts a sane package.
  auto ok = make_deb(t.path(), "fine", "[('./usr/', 'dir'), ('./usr/f', 'file', 'x')]");
  EXPECT_EQ(convert_error(ok, t / "out-fine"), "");
}

TEST(OddDeb, Latin1ControlAndNonUtf8PathsAreKeptByteForByte) {
  // Debian does not require UTF-8 in control files or paths: such a package
  // converts, is cached and is read back from the cache with every byte kept.
  testing::TempDir t;
  auto deb = make_deb(t.path(), "latin", "[('./usr/', 'dir'), ('./usr/caf\\udce9', 'file', 'x')]", "",
                      "'Package: latin\\nVersion: 1\\nArchitecture: all\\nMaintainer: J\\xf6rg <j@x>\\n"
                      "Description: x\\n'.encode('latin-1')");
  oci::ImageFilesystem base;
  auto rules = RewriteRules::from_base(base, 1700000000);
  ASSERT_TRUE(rules);
  FragmentCache cache(t / "home");
  std::string sha(64, 'a');
  auto first = cache.get(deb, sha, *rules, oci::Compression::kGzip, "latin_1_all.deb");
  ASSERT_TRUE(first) << first.error().message();
  EXPECT_TRUE(first->converted);
  EXPECT_NE(first->info.control.find("Maintainer: J\xf6rg <j@x>"), std::string::npos);
  ASSERT_EQ(first->info.entries.size(), 2u);
  EXPECT_EQ(first->info.entries[1].path, "usr/caf\xe9");
  auto again = cache.get(deb, sha, *rules, oci::Compression::kGzip, "latin_1_all.deb");
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_FALSE(again->converted);
  EXPECT_EQ(again->info.control, first->info.control);
  EXPECT_EQ(again->info.list, first->info.list);
  EXPECT_EQ(again->info.entries[1].path, "usr/caf\xe9");
}

}  // namespace
}  // namespace strata::layer
