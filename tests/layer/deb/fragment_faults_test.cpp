// The fragment cache ($STRATA_HOME/fragments) under filesystem faults
// (support/fault_env.hpp) at every step of a conversion's write: a clear
// error naming the file and the errno text, no fragment directory that is
// not complete, no temporary directory left, the fragments converted before
// intact, and the same package converted once the fault is gone.
#include <gtest/gtest.h>

#include "layer/deb/fragment.hpp"
#include "support/fault_env.hpp"
#include "support/make_deb.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"

namespace strata::layer {
namespace {

namespace stdfs = std::filesystem;
using testing::at_every_step;
using testing::FaultEnv;
using testing::names_the_fault;
using testing::standard_faults;

TEST(FragmentCacheFaults, AConversionFailsCleanlyAtEveryStep) {
  testing::TempDir debs;
  auto old_deb = testing::make_deb(debs.path(), "old", "[('./usr/', 'dir'), ('./usr/old', 'file', 'o' * 3000)]");
  auto new_deb = testing::make_deb(debs.path(), "new",
                                   "[('./usr/', 'dir'), ('./usr/bin/', 'dir'), ('./usr/bin/new', 'file', 'n' * 9000),"
                                   " ('./usr/bin/alias', 'sym', 'new')]");
  oci::ImageFilesystem base;
  auto rules = RewriteRules::from_base(base, 1700000000);
  ASSERT_TRUE(rules);
  const std::string old_sha(64, 'a'), new_sha(64, 'b');
  for (const auto& fault : standard_faults()) {
    auto steps = at_every_step(fault, [&](FaultEnv& env) {
      testing::TempDir home;
      FragmentCache cache(home.path());
      std::string old_tar;
      {
        fs::ScopedEnv real(fs::posix_env());
        auto old_first = cache.get(old_deb, old_sha, *rules, oci::Compression::kGzip, "old_1_all.deb");
        ASSERT_TRUE(old_first) << old_first.error().message();
        old_tar = *fs::read_file(old_first->tar);
      }
      auto r = cache.get(new_deb, new_sha, *rules, oci::Compression::kGzip, "new_1_all.deb");
      fs::ScopedEnv real(fs::posix_env());
      if (!env.fired()) {
        ASSERT_TRUE(r) << r.error().message();
      } else if (!r) {
        EXPECT_TRUE(names_the_fault(r.error().message(), env));
      }
      // Every directory in fragments/ is a complete fragment; nothing temporary.
      for (const auto& e : stdfs::directory_iterator(home / "fragments")) {
        auto name = e.path().filename().string();
        if (name.starts_with(".tmp-")) {
          EXPECT_TRUE(env.fired_op() == fs::Op::kRemove || env.fired_op() == fs::Op::kList)
              << "left behind: " << name << " after " << env.what_fired();
          continue;
        }
        EXPECT_TRUE(stdfs::exists(e.path() / "info.bin")) << name << " after " << env.what_fired();
      }
      auto old_again = cache.get(old_deb, old_sha, *rules, oci::Compression::kGzip, "old_1_all.deb");
      ASSERT_TRUE(old_again) << old_again.error().message();
      EXPECT_FALSE(old_again->converted) << "the earlier fragment was damaged by " << env.what_fired();
      EXPECT_EQ(*fs::read_file(old_again->tar), old_tar);
      auto again = cache.get(new_deb, new_sha, *rules, oci::Compression::kGzip, "new_1_all.deb");
      ASSERT_TRUE(again) << again.error().message() << " after " << env.what_fired();
      EXPECT_EQ(again->info.entries.size(), 4u);
    });
    EXPECT_GE(steps, fault.err == EXDEV || fault.err == EACCES ? 1u : 5u) << fault.name;
  }
}

}  // namespace
}  // namespace strata::layer
