// The resolver against apt's rules (apt's MarkInstall, as in Debian 12), one case per
// rule, on small hand-written indexes.
#include "layer/apt/resolver.hpp"

#include <gtest/gtest.h>

#include "layer/debian/deb822.hpp"

namespace strata::layer {
namespace {

std::vector<Package> parse(std::string_view text) {
  std::vector<Package> out;
  auto st = parse_deb822(text, "test");
  EXPECT_TRUE(st.has_value()) << st.error().message();
  for (const auto& s : *st) {
    auto p = package_from_stanza(s, StanzaKind::kStatus, "test");
    EXPECT_TRUE(p.has_value()) << p.error().message();
    out.push_back(*p);
  }
  return out;
}

struct Fixture {
  ResolveOptions options;
  std::vector<std::pair<std::string, int>> indexes;
  std::string installed;

  Result<Resolution> run(const std::vector<std::string>& req) const {
    Resolver r(options);
    for (const auto& [text, prio] : indexes) r.add_index(parse(text), prio);
    if (!installed.empty()) r.set_installed(parse(installed));
    return r.resolve(req);
  }
  // "name version arch" lines, sorted, or the error message.
  std::string lines(const std::vector<std::string>& req) const {
    auto res = run(req);
    if (!res) return "ERROR: " + res.error().message();
    std::string out;
    for (const auto& p : res->install)
      out += p.package.name + " " + p.package.version + " " + p.package.architecture + "\n";
    return out;
  }
};

TEST(Resolver, FollowsDependsAndPreDependsAndSortsByName) {
  Fixture f;
  f.indexes = {{R"(Package: zeta
Version: 1
Architecture: amd64
Pre-Depends: beta
Depends: alpha (>= 1.0)

Package: alpha
Version: 1.2
Architecture: all

Package: beta
Version: 2
Architecture: amd64

Package: unrelated
Version: 1
Architecture: amd64
)", 500}};
  EXPECT_EQ(f.lines({"zeta"}), "alpha 1.2 all\nbeta 2 amd64\nzeta 1 amd64\n");
}

constexpr const char* kOrGroup = R"(Package: app
Version: 1
Architecture: amd64
Depends: first | second

Package: first
Version: 1
Architecture: amd64

Package: second
Version: 1
Architecture: amd64
)";

TEST(Resolver, OrGroupTakesFirstAlternative) {
  Fixture f;
  f.indexes = {{kOrGroup, 500}};
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nfirst 1 amd64\n");
}

TEST(Resolver, OrGroupSkippedWhenAMemberIsInstalled) {
  Fixture f;
  f.indexes = {{kOrGroup, 500}};
  f.installed = "Package: second\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n";
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\n");
}

TEST(Resolver, OrGroupSkippedWhenAMemberIsRequested) {
  Fixture f;
  f.indexes = {{kOrGroup, 500}};
  EXPECT_EQ(f.lines({"app", "second"}), "app 1 amd64\nsecond 1 amd64\n");
}

TEST(Resolver, OrGroupSkipsUninstallableMember) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: broken | missing | second

Package: broken
Version: 1
Architecture: amd64
Depends: nowhere

Package: second
Version: 1
Architecture: amd64
)", 500}};
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nsecond 1 amd64\n");
}

TEST(Resolver, VirtualWithOneProviderInstallsIt) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: mail-transport-agent

Package: postfix
Version: 3
Architecture: amd64
Provides: mail-transport-agent
)", 500}};
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\npostfix 3 amd64\n");
}

TEST(Resolver, RealPackageBeatsProviders) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: libfoo

Package: libfoo-extra
Version: 9
Architecture: amd64
Priority: required
Provides: libfoo

Package: libfoo
Version: 1
Architecture: amd64
Priority: optional
)", 500}};
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nlibfoo 1 amd64\n");
}

TEST(Resolver, SeveralProvidersOrderedByPriorityField) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: awk

Package: gawk
Version: 5
Architecture: amd64
Priority: optional
Provides: awk

Package: mawk
Version: 1.3
Architecture: amd64
Priority: required
Provides: awk
)", 500}};
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nmawk 1.3 amd64\n");
}

TEST(Resolver, RequestingVirtualWithSeveralProvidersFails) {
  Fixture f;
  f.indexes = {{"Package: a\nVersion: 1\nArchitecture: amd64\nProvides: v\n\n"
                "Package: b\nVersion: 1\nArchitecture: amd64\nProvides: v\n", 500}};
  EXPECT_EQ(f.lines({"v"}), "ERROR: package v is a virtual package provided by: a, b; request one of them explicitly");
  f.indexes = {{"Package: a\nVersion: 1\nArchitecture: amd64\nProvides: v\n", 500}};
  EXPECT_EQ(f.lines({"v"}), "a 1 amd64\n");
}

TEST(Resolver, VersionedDependencyNeedsVersionedProvides) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: api (>= 2)

Package: old-impl
Version: 1
Architecture: amd64
Provides: api (= 1)

Package: unversioned-impl
Version: 1
Architecture: amd64
Provides: api

Package: new-impl
Version: 1
Architecture: amd64
Provides: api (= 2.1)
)", 500}};
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nnew-impl 1 amd64\n");
}

constexpr const char* kMultiArch = R"(Package: app
Version: 1
Architecture: i386
Depends: tool, libx, python3:any

Package: tool
Version: 1
Architecture: amd64
Multi-Arch: foreign

Package: libx
Version: 1
Architecture: amd64
Multi-Arch: same

Package: libx
Version: 1
Architecture: i386
Multi-Arch: same

Package: python3
Version: 3.11
Architecture: amd64
Multi-Arch: allowed

Package: plain
Version: 1
Architecture: amd64

Package: wants-any
Version: 1
Architecture: amd64
Depends: plain:any
)";

TEST(Resolver, MultiArchForeignSameAllowedAndAny) {
  Fixture f;
  f.options.foreign_archs = {"i386"};
  f.indexes = {{kMultiArch, 500}};
  EXPECT_EQ(f.lines({"app:i386"}), "app 1 i386\nlibx 1 i386\npython3 3.11 amd64\ntool 1 amd64\n");
  // ':any' on a package that is not Multi-Arch: allowed cannot be satisfied.
  EXPECT_EQ(f.lines({"wants-any"}),
            "ERROR: the request cannot be satisfied; the following packages have unmet dependencies:\n"
            " wants-any : Depends: plain:any but it is not going to be installed\n"
            "(the same request would fail in apt-get; change the request, the base or the sources)");
}

TEST(Resolver, ConflictsAndBreaksSteerAlternatives) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: first | second | third

Package: first
Version: 1
Architecture: amd64
Conflicts: base-thing

Package: second
Version: 1
Architecture: amd64
Breaks: base-thing (<< 5)

Package: third
Version: 1
Architecture: amd64
)", 500}};
  f.installed = "Package: base-thing\nStatus: install ok installed\nVersion: 4\nArchitecture: amd64\n";
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nthird 1 amd64\n");
  // Requested directly, the conflict is reported like apt.
  EXPECT_EQ(f.lines({"first"}),
            "ERROR: the request cannot be satisfied; the following packages have unmet dependencies:\n"
            " first : Conflicts: base-thing but 4 is installed\n"
            "(the same request would fail in apt-get; change the request, the base or the sources)");
}

TEST(Resolver, BreaksOnInstalledPackageUpgradesIt) {
  Fixture f;
  f.indexes = {{R"(Package: newlib
Version: 2
Architecture: amd64
Breaks: user (<< 2)

Package: user
Version: 2
Architecture: amd64
)", 500}};
  f.installed = "Package: user\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n";
  EXPECT_EQ(f.lines({"newlib"}), "newlib 2 amd64\nuser 2 amd64\n");
}

TEST(Resolver, EssentialPackagesAreNotPulledIn) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: libc6

Package: libc6
Version: 2.36
Architecture: amd64

Package: coreutils
Version: 9
Architecture: amd64
Essential: yes
Priority: required
)", 500}};
  f.installed = "Package: libc6\nStatus: install ok installed\nVersion: 2.36\nArchitecture: amd64\n\n"
                "Package: coreutils\nStatus: install ok installed\nVersion: 9\nArchitecture: amd64\nEssential: yes\n";
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\n");
  f.installed.clear();
  // Without a base, apt does not add the Essential set either.
  EXPECT_EQ(f.lines({"app"}), "app 1 amd64\nlibc6 2.36 amd64\n");
}

TEST(Resolver, PinPrioritiesChooseCandidates) {
  Fixture f;
  f.indexes = {{"Package: tool\nVersion: 1\nArchitecture: amd64\n", 500},
               {"Package: tool\nVersion: 3\nArchitecture: amd64\n", 1},      // experimental
               {"Package: tool\nVersion: 2\nArchitecture: amd64\n", 100}};   // backports
  EXPECT_EQ(f.lines({"tool"}), "tool 1 amd64\n");
  // Installed at 1 (priority 100): the ButAutomaticUpgrades version 2 (also
  // 100) wins by version; NotAutomatic 3 (priority 1) never does.
  f.installed = "Package: tool\nStatus: install ok installed\nVersion: 1.5\nArchitecture: amd64\n";
  EXPECT_EQ(f.lines({"tool"}), "tool 2 amd64\n");
  // An explicit version request overrides the pin, as apt's tool=VERSION.
  f.installed.clear();
  EXPECT_EQ(f.lines({"tool=3"}), "tool 3 amd64\n");
}

TEST(Resolver, NoDowngradeBelowPriority1000) {
  Fixture f;
  f.indexes = {{"Package: tool\nVersion: 1\nArchitecture: amd64\n", 500}};
  f.installed = "Package: tool\nStatus: install ok installed\nVersion: 2\nArchitecture: amd64\n";
  EXPECT_EQ(f.lines({"tool"}), "");
}

TEST(Resolver, InstalledKeptUnlessVersionedDependencyForcesUpgrade) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: libold, libneed (>= 2)

Package: libold
Version: 5
Architecture: amd64

Package: libneed
Version: 2
Architecture: amd64
)", 500}};
  f.installed = "Package: libold\nStatus: install ok installed\nVersion: 4\nArchitecture: amd64\n\n"
                "Package: libneed\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n";
  auto res = f.run({"app"});
  ASSERT_TRUE(res.has_value()) << res.error().message();
  ASSERT_EQ(res->install.size(), 2u);
  EXPECT_EQ(res->install[1].package.name, "libneed");
  EXPECT_EQ(res->install[1].package.version, "2");
  EXPECT_EQ(res->install[1].installed_version, "1");
}

TEST(Resolver, RequestedInstalledPackageIsNotListed) {
  Fixture f;
  f.indexes = {{"Package: tool\nVersion: 1\nArchitecture: amd64\n", 500}};
  f.installed = "Package: tool\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\n";
  EXPECT_EQ(f.lines({"tool"}), "");
}

TEST(Resolver, UnsatisfiableRequestsExplainWhy) {
  Fixture f;
  f.indexes = {{R"(Package: app
Version: 1
Architecture: amd64
Depends: libneed (>= 3), ghost | phantom

Package: libneed
Version: 2
Architecture: amd64

Package: refers
Version: 1
Architecture: amd64
Depends: gone
)", 500}};
  EXPECT_EQ(f.lines({"app"}),
            "ERROR: the request cannot be satisfied; the following packages have unmet dependencies:\n"
            " app : Depends: libneed (>= 3) but it is not going to be installed\n"
            " app : Depends: ghost but it is not installable or phantom but it is not installable\n"
            "(the same request would fail in apt-get; change the request, the base or the sources)");
  EXPECT_EQ(f.lines({"nosuch"}),
            "ERROR: unable to locate package nosuch:amd64 in the configured sources (check the name, --sources and "
            "--platform)");
  EXPECT_EQ(f.lines({"app=7"}), "ERROR: version '7' for 'app' was not found in the sources");
}

// apt ≥ 2.1 (APT::Get::Upgrade-By-Source-Package): marking a version of
// source S at source version V upgrades every other installed binary whose
// candidate is S at exactly V. Expected results checked against apt-get 2.6.
TEST(Resolver, UpgradesOtherInstalledBinariesOfTheSameSourceVersion) {
  Fixture f;
  f.options.foreign_archs = {"i386"};
  f.indexes = {{R"(Package: libg
Version: 2
Architecture: amd64
Source: g
Multi-Arch: same

Package: libg
Version: 2
Architecture: i386
Source: g
Multi-Arch: same

Package: g-data
Version: 2
Architecture: all
Source: g

Package: g-bin
Version: 2+b1
Architecture: amd64
Source: g (2)

Package: g-extra
Version: 1.1
Architecture: amd64
Source: g

Package: g-new
Version: 2
Architecture: amd64
Source: g

Package: g-dev
Version: 2
Architecture: amd64
Source: g
Depends: libg (= 2)

Package: other
Version: 2
Architecture: amd64

Package: user
Version: 1
Architecture: amd64
Depends: g-dev
)", 500}};
  f.installed = R"(Package: libg
Status: install ok installed
Version: 1
Architecture: amd64
Source: g
Multi-Arch: same

Package: g-data
Status: install ok installed
Version: 1
Architecture: all
Source: g

Package: g-bin
Status: install ok installed
Version: 1
Architecture: amd64
Source: g

Package: g-extra
Status: install ok installed
Version: 1
Architecture: amd64
Source: g

Package: other
Status: install ok installed
Version: 1
Architecture: amd64
Source: g
)";
  // A new dependency (g-dev) drags the installed siblings along: g-bin is a
  // binNMU of the same source version; g-extra's candidate is another source
  // version; g-new is not installed; `other` was from g but its candidate is
  // from source `other`.
  EXPECT_EQ(f.lines({"user"}),
            "g-bin 2+b1 amd64\ng-data 2 all\ng-dev 2 amd64\nlibg 2 amd64\nuser 1 amd64\n");
  // A requested upgrade whose own dependencies are met does the same.
  EXPECT_EQ(f.lines({"g-data"}), "g-bin 2+b1 amd64\ng-data 2 all\nlibg 2 amd64\n");
  EXPECT_EQ(f.lines({"g-extra"}), "g-extra 1.1 amd64\n");
  // Every architecture of an installed M-A: same sibling is upgraded.
  f.installed += "\nPackage: libg\nStatus: install ok installed\nVersion: 1\nArchitecture: i386\nSource: g\n"
                 "Multi-Arch: same\n";
  EXPECT_EQ(f.lines({"g-new"}),
            "g-bin 2+b1 amd64\ng-data 2 all\ng-new 2 amd64\nlibg 2 amd64\nlibg 2 i386\n");
}

TEST(Resolver, SourceUpgradeSkipsASiblingOutOfMultiArchSync) {
  // libg:i386 has no version 2 candidate, so libg:amd64 2 would break the
  // M-A: same version sync; apt leaves it (and only it) alone.
  Fixture f;
  f.options.foreign_archs = {"i386"};
  f.indexes = {{"Package: libg\nVersion: 2\nArchitecture: amd64\nSource: g\nMulti-Arch: same\n\n"
                "Package: libg\nVersion: 1.5\nArchitecture: i386\nSource: g\nMulti-Arch: same\n\n"
                "Package: g-data\nVersion: 2\nArchitecture: all\nSource: g\n",
                500}};
  f.installed = "Package: libg\nStatus: install ok installed\nVersion: 1\nArchitecture: amd64\nSource: g\n"
                "Multi-Arch: same\n\n"
                "Package: libg\nStatus: install ok installed\nVersion: 1\nArchitecture: i386\nSource: g\n"
                "Multi-Arch: same\n\n"
                "Package: g-data\nStatus: install ok installed\nVersion: 1\nArchitecture: all\nSource: g\n";
  EXPECT_EQ(f.lines({"g-data"}), "g-data 2 all\n");
}

}  // namespace
}  // namespace strata::layer
