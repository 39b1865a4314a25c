// The router on the JVM, Elixir and .NET fixture repositories against a bare
// base and an archive with Debian 12's versions of their packages: a JDK the
// archive has is an overlay package, a build tool the project's wrapper
// downloads is the project's bootstrap, and a runtime the archive lacks says
// that its vendor's archives are not a toolchain kind strata downloads yet.
// Each test states the plan's rows exactly.
#include "contract/route/router.hpp"

#include <gtest/gtest.h>

#include <map>

#include "contract/route/plan_output.hpp"
#include "contract/route/plan_rows.hpp"
#include "contract/scan/scan.hpp"
#include "util/strings.hpp"

namespace strata::contract::route {
namespace {

// Debian 12 (bookworm) versions, as apt-cache policy gives them.
Candidates bookworm() {
  return Candidates({{"build-essential", "12.9"},
                     {"gcc", "4:12.2.0-3"},
                     {"make", "4.3-4.1"},
                     {"openjdk-17-jdk-headless", "17.0.13+11-1~deb12u1"},
                     {"openjdk-17-jre-headless", "17.0.13+11-1~deb12u1"},
                     {"maven", "3.8.7-1"},
                     {"gradle", "4.4.1-18"},
                     {"elixir", "1.14.0.dfsg-2"},
                     {"erlang", "1:25.2.3+dfsg-1+deb12u4"},
                     {"erlang-nox", "1:25.2.3+dfsg-1+deb12u4"}},
                    {{"c-compiler", {"gcc"}}});
}

const Row* row(const Plan& p, const std::string& name) {
  for (const auto& r : p.rows)
    if (r.name == name) return &r;
  return nullptr;
}

Plan plan(const std::string& repo) {
  Contract c = scan(repo);
  Candidates archive = bookworm();
  return route({c, bare_base(), archive, "oci:/images:base"});
}

TEST(RouterEcosystems, MavenOnJava17TakesDebiansJdkAndTheWrappersMaven) {
  Plan p = plan("jvm-maven-spring");
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | java | >=17.0.0 | overlay | openjdk-17-jdk-headless",
                         "runtime | maven | =3.9.6 | project-bootstrap",
                         "egress | packages.confluent.io | read-only | egress",
                         "egress | repo.maven.apache.org | read-only | egress",
                         "egress | repo.spring.io | read-only | egress",
                         "egress | repo1.maven.org | read-only | egress",
                     }));
  EXPECT_NE(row(p, "maven")->why.find("the project's wrapper downloads maven 3.9.6"), std::string::npos)
      << row(p, "maven")->why;
}

TEST(RouterEcosystems, AJava21ToolchainIsNotInBookwormAndSaysWhy) {
  Plan p = plan("jvm-gradle-kotlin");
  const Row* java = row(p, "java");
  ASSERT_NE(java, nullptr);
  EXPECT_EQ(layer_name(java->layer), std::string("unrouted"));
  EXPECT_NE(java->why.find("the archive has openjdk-17-jdk-headless 17.0.13+11-1~deb12u1"), std::string::npos) << java->why;
  EXPECT_NE(java->why.find("Temurin's JDK archives"), std::string::npos) << java->why;
  EXPECT_NE(java->why.find("not yet a toolchain kind strata downloads"), std::string::npos) << java->why;
  EXPECT_EQ(layer_name(row(p, "gradle")->layer), std::string("project-bootstrap"));
}

TEST(RouterEcosystems, PhoenixTakesDebiansElixirButNotItsOldErlang) {
  Plan p = plan("elixir-phoenix-nifs");
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | elixir | >=1.14.0 <2.0.0 | overlay | elixir",
                         "runtime | erlang | =26.2.5 | unrouted",
                         "toolchain | native build | cc make | overlay | build-essential",
                         "egress | builds.hex.pm | read-only | egress",
                         "egress | github.com | read-only | egress",
                         "egress | hex.pm | read-only | egress",
                         "egress | objects.githubusercontent.com | read-only | egress",
                         "egress | registry.npmjs.org | read-only | egress",
                         "egress | release-assets.githubusercontent.com | read-only | egress",
                         "egress | repo.hex.pm | read-only | egress",
                     }));
  EXPECT_NE(row(p, "erlang")->why.find("the archive has erlang-nox 1:25.2.3+dfsg-1+deb12u4"), std::string::npos)
      << row(p, "erlang")->why;
  EXPECT_NE(row(p, "erlang")->why.find("Erlang/OTP release builds"), std::string::npos);
}

// A floor the archive's JDK exceeds (17 serves >=11) and no stated version
// at all both take the headless JDK, not the desktop one.
TEST(RouterEcosystems, AnyNewerJdkServesAnOlderFloorHeadlessFirst) {
  Candidates archive(std::map<std::string, std::string>{{"openjdk-17-jdk", "17.0.13+11-1~deb12u1"},
                                                        {"openjdk-17-jdk-headless", "17.0.13+11-1~deb12u1"}},
                     {});
  for (const std::string floor : {"11.0.0", ""}) {
    Contract c;
    c.root = "jvm";
    c.runtime_floors["java"] = RuntimeFloor{.floor = floor, .satisfying = floor.empty() ? "" : ">=" + floor};
    Plan p = route({c, bare_base(), archive, "b"});
    EXPECT_EQ(rows(p), std::vector<std::string>{"runtime | java | " + (floor.empty() ? std::string("any") : ">=" + floor) +
                                                " | overlay | openjdk-17-jdk-headless"});
  }
}

TEST(RouterEcosystems, DotnetHasNoDebianPackageAndNoToolchainYet) {
  Plan p = plan("dotnet-webapi");
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | dotnet | >=8.0.100 | unrouted",
                         "egress | api.nuget.org | read-only | egress",
                         "egress | pkgs.dev.azure.com | read-only | egress",
                     }));
  EXPECT_NE(row(p, "dotnet")->why.find("no Debian package of dotnet"), std::string::npos) << row(p, "dotnet")->why;
  EXPECT_NE(row(p, "dotnet")->why.find("Microsoft's SDK archives"), std::string::npos);
}

}  // namespace
}  // namespace strata::contract::route
