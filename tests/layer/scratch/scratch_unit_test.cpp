// The pure parts of a scratch root: the variant's package names, accounts
// from base-passwd's master files, update-shells, the sources file.
#include <gtest/gtest.h>

#include "layer/scratch/scratch_accounts.hpp"
#include "layer/scratch/scratch_effects.hpp"
#include "layer/scratch/scratch_packages.hpp"
#include "layer/scratch/scratch_shells.hpp"

namespace strata::layer {
namespace {

Package pkg(std::string name, std::string version, std::string arch, bool essential, int priority) {
  Package p;
  p.name = std::move(name);
  p.version = std::move(version);
  p.architecture = std::move(arch);
  p.essential = essential;
  p.priority = priority;
  return p;
}

TEST(ScratchPackages, CandidatesDecideEssentialAndRequired) {
  std::vector<Package> main{pkg("dash", "1", "amd64", true, 1), pkg("tzdata", "1", "all", false, 1),
                            pkg("apt", "2", "amd64", false, 2), pkg("foreign", "1", "arm64", true, 1),
                            pkg("was-essential", "1", "amd64", true, 4), pkg("vim", "1", "amd64", false, 4)};
  // A newer version in a second source is no longer essential: the candidate decides.
  std::vector<Package> updates{pkg("was-essential", "2", "amd64", false, 4)};
  // NotAutomatic (priority 1) loses to 500 even with a higher version.
  std::vector<Package> experimental{pkg("vim", "9", "amd64", true, 1)};
  std::vector<ScratchIndex> idx{{&main, 500}, {&updates, 500}, {&experimental, 1}};
  EXPECT_EQ(scratch_requests(idx, "amd64", ScratchVariant::kEssential), (std::vector<std::string>{"dash"}));
  EXPECT_EQ(scratch_requests(idx, "amd64", ScratchVariant::kMinbase),
            (std::vector<std::string>{"apt", "dash", "tzdata"}));
  EXPECT_FALSE(parse_scratch_variant("buildd"));
  EXPECT_EQ(*parse_scratch_variant("essential"), ScratchVariant::kEssential);
}

TEST(ScratchAccounts, ShadowFromMastersWithTheEpochsDay) {
  auto files = account_effects("root:*:0:0:root:/root:/bin/bash\nnobody:*:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n",
                               "root:*:0:\nshadow:*:42:\nstaff:*:50:alice,bob\n", 86400 * 3 + 5, "base-passwd");
  ASSERT_TRUE(files) << files.error().message();
  ASSERT_EQ(files->size(), 4u);
  EXPECT_EQ((*files)[0].content, "root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n");
  EXPECT_EQ((*files)[1].content, "root:x:0:\nshadow:x:42:\nstaff:x:50:alice,bob\n");
  EXPECT_EQ((*files)[2].entry.path, "etc/shadow");
  EXPECT_EQ((*files)[2].content, "root:*:3:0:99999:7:::\nnobody:*:3:0:99999:7:::\n");
  EXPECT_EQ((*files)[2].entry.gid, 42u);
  EXPECT_EQ((*files)[2].entry.mode, 0640u);
  EXPECT_EQ((*files)[3].content, "root:*::\nshadow:*::\nstaff:*::alice,bob\n");
}

TEST(ScratchAccounts, MalformedMastersAndMissingShadowGroupAreRefused) {
  auto bad = account_effects("root:*:zero:0:root:/root:/bin/bash\n", "shadow:*:42:\n", 0, "base-passwd");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("base-passwd passwd.master line 1"), std::string::npos);
  auto no_shadow = account_effects("root:*:0:0:root:/root:/bin/bash\n", "root:*:0:\n", 0, "base-passwd");
  ASSERT_FALSE(no_shadow);
  EXPECT_NE(no_shadow.error().message().find("no shadow group"), std::string::npos);
}

TEST(ScratchShells, TemplateDeclaredThenMergedUsrTwins) {
  auto real = [](const std::string& d) { return d == "/bin" ? std::string("/usr/bin") : d; };
  auto s = update_shells("# /etc/shells: valid login shells\n/bin/sh\n",
                         {{"dash", "/bin/dash\n"}, {"bash", "/bin/bash\n/bin/rbash\n# comment\n"},
                          {"zsh", "/usr/bin/zsh\n"}},
                         real);
  EXPECT_EQ(s.etc_shells,
            "# /etc/shells: valid login shells\n/bin/sh\n/bin/bash\n/bin/rbash\n/bin/dash\n/usr/bin/zsh\n"
            "/usr/bin/sh\n/usr/bin/bash\n/usr/bin/rbash\n/usr/bin/dash\n");
  EXPECT_EQ(s.state, "/bin/sh\n/usr/bin/sh\n/bin/bash\n/usr/bin/bash\n/bin/rbash\n/usr/bin/rbash\n/bin/dash\n"
                     "/usr/bin/dash\n/usr/bin/zsh\n");
}

TEST(ScratchSources, OneStanzaPerArchiveAndKey) {
  std::vector<LockSource> src{
      {"http://deb.debian.org/debian", "bookworm", {"main"}, "", 0, "ABCD", std::nullopt},
      {"http://deb.debian.org/debian", "bookworm-updates", {"main"}, "", 0, "ABCD", std::nullopt},
      {"http://deb.debian.org/debian-security", "bookworm-security", {"main"}, "", 0, "EF01", std::nullopt}};
  EXPECT_EQ(scratch_sources_file(src),
            "# Written by strata build --base scratch: the sources this image was built from.\n"
            "\nTypes: deb\nURIs: http://deb.debian.org/debian\nSuites: bookworm bookworm-updates\n"
            "Components: main\nSigned-By: ABCD\n"
            "\nTypes: deb\nURIs: http://deb.debian.org/debian-security\nSuites: bookworm-security\n"
            "Components: main\nSigned-By: EF01\n");
}

}  // namespace
}  // namespace strata::layer
