// The router on the JVM, Elixir and .NET fixture repositories against a bare
// base and an archive with Debian 12's versions of their packages: a JDK the
// archive has is an overlay package, a build tool the project's wrapper
// downloads is the project's bootstrap, a JDK the archive lacks is Eclipse
// Temurin's and .NET is Microsoft's SDK (task toolchains), and Erlang/OTP the
// archive lacks says that its builds are not a toolchain kind strata
// downloads yet.
// Each test states the plan's rows exactly.
#include "contract/route/router.hpp"

#include <gtest/gtest.h>

#include <algorithm>
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
                     {"erlang-nox", "1:25.2.3+dfsg-1+deb12u4"},
                     {"git", "1:2.39.5-0+deb12u2"}, {"ca-certificates", "20230311+deb12u1"},
                     // What the .NET SDK loads (Microsoft's list for Debian 12).
                     {"libc6", "2.36-9+deb12u9"},
                     {"libgcc-s1", "12.2.0-14"},
                     {"libgssapi-krb5-2", "1.20.1-2+deb12u2"},
                     {"libicu72", "72.1-3"},
                     {"libssl3", "3.0.15-1~deb12u1"},
                     {"libstdc++6", "12.2.0-14"},
                     {"zlib1g", "1:1.2.13.dfsg-1"}},
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

// The Symfony fixture's Dockerfile compiles its extensions into the php
// image's PHP. On a base without PHP the overlay gets Debian's PHP and its
// extension packages; on the php image (its own PHP, ENV PHP_VERSION) the
// extensions are compiled with its phpize, and no Debian PHP comes near it.
TEST(RouterEcosystems, PhpExtensionsFollowThePhpOfTheBase) {
  Contract c = scan("php-symfony-docker");
  Candidates archive({{"php8.2-cli", "8.2.28-1~deb12u1"},  {"php8.2-intl", "8.2.28-1~deb12u1"},
                      {"php8.2-pgsql", "8.2.28-1~deb12u1"}, {"php8.2-zip", "8.2.28-1~deb12u1"},
                      {"php8.2-gd", "8.2.28-1~deb12u1"},    {"php8.2-redis", "5.3.7+4.3.0-3"},
                      {"php8.2-apcu", "5.1.22+4.0.11-2"},   {"composer", "2.5.5-1+deb12u5"},
                      {"unzip", "6.0-28"},                  {"git", "1:2.39.5-0+deb12u2"}, {"ca-certificates", "20230311+deb12u1"},
                      {"build-essential", "12.9"},          {"autoconf", "2.71-3"},
                      {"pkg-config", "1.8.1-1"},            {"libicu-dev", "72.1-3"},
                      {"libzip-dev", "1.7.3-1+b1"},         {"libpq-dev", "15.13-0+deb12u1"},
                      {"libfreetype-dev", "2.12.1+dfsg-5"}, {"libjpeg-dev", "1:2.1.5-2"},
                      {"libpng-dev", "1.6.39-2"},           {"gcc", "4:12.2.0-3"},
                      {"make", "4.3-4.1"}},
                     {{"c-compiler", {"gcc"}}});
  auto decision = [](const Plan& p, const std::string& by) -> const Decision* {
    for (const auto& d : p.decisions)
      if (d.package == by) return &d;
    return nullptr;
  };

  Plan debian = route({c, bare_base(), archive, "oci:/images:base"});
  for (const char* ext : {"intl", "zip", "pdo_pgsql", "opcache", "apcu", "redis", "gd"}) {
    const Decision* d = decision(debian, std::string("php-ext:") + ext);
    ASSERT_NE(d, nullptr) << ext;
    EXPECT_EQ(d->choice, "package") << ext;
  }
  const auto& o = debian.overlay_packages;
  // Debian's version-less php-redis is its default PHP's; the plan names the
  // extension for the PHP it installs (php8.2-redis, which bookworm has too).
  for (const char* pkg : {"php8.2-intl", "php8.2-pgsql", "php8.2-zip", "php8.2-redis", "php8.2-apcu", "php8.2-gd"})
    EXPECT_NE(std::find(o.begin(), o.end(), pkg), o.end()) << pkg;
  // Nothing compiles (the Dockerfile's own apt-get line still brings its -dev libraries).
  for (const char* pkg : {"autoconf", "build-essential"}) EXPECT_EQ(std::find(o.begin(), o.end(), pkg), o.end()) << pkg;

  image::ImageFacts php_image = bare_base();
  php_image.runtimes = {{"php", "8.3.14", "env", "ENV PHP_VERSION=8.3.14"}};
  php_image.commands = {{"php", "/usr/local/bin/php"}, {"phpize", "/usr/local/bin/phpize"}};
  Plan own = route({c, php_image, archive, "oci:/images:php"});
  const Decision* intl = decision(own, "php-ext:intl");
  ASSERT_NE(intl, nullptr);
  EXPECT_EQ(intl->choice, "compile");
  EXPECT_NE(intl->why.find("the base's PHP is its own (ENV PHP_VERSION=8.3.14), not Debian's"), std::string::npos)
      << intl->why;
  const auto& g = own.overlay_packages;
  for (const char* pkg : {"libicu-dev", "libzip-dev", "libpq-dev", "autoconf", "pkg-config", "build-essential"})
    EXPECT_NE(std::find(g.begin(), g.end(), pkg), g.end()) << pkg;
  for (const auto& pkg : g) EXPECT_FALSE(pkg.starts_with("php")) << pkg << ": Debian's PHP beside the image's";
  EXPECT_EQ(layer_name(row(own, "php")->layer), std::string("base"));
  EXPECT_EQ(layer_name(row(own, "phpize")->layer), std::string("base"));
}

// An archive with several PHPs (packages.sury.org's) gives the repository
// the PHP it means: the Dockerfile's php:8.5, not the support's lowest 8.4.
// One with only 8.4 gives 8.4, and the extensions are 8.4's: a plan never
// pairs one PHP with another's extension packages.
TEST(RouterEcosystems, ThePhpTheRepositoryMeansAndItsExtensionsFromAnArchiveWithSeveral) {
  Contract c = scan("php-dockerfile-line");
  std::map<std::string, std::string> both{
      {"php8.4-cli", "8.4.15-1+0~20251120.1+debian12~1.gbp"}, {"php8.4-intl", "8.4.15-1+0~20251120.1+debian12~1.gbp"},
      {"php8.4-pgsql", "8.4.15-1+0~20251120.1+debian12~1.gbp"}, {"php8.5-cli", "8.5.0-1+0~20251121.2+debian12~1.gbp"},
      {"php8.5-intl", "8.5.0-1+0~20251121.2+debian12~1.gbp"},  {"php8.5-pgsql", "8.5.0-1+0~20251121.2+debian12~1.gbp"},
      {"composer", "2.5.5-1+deb12u5"}, {"unzip", "6.0-28"}, {"libicu-dev", "72.1-3"}, {"libpq-dev", "15.13-0+deb12u1"}};
  auto has = [](const Plan& p, const std::string& pkg) {
    return std::find(p.overlay_packages.begin(), p.overlay_packages.end(), pkg) != p.overlay_packages.end();
  };

  Plan several = route({c, bare_base(), Candidates(both, {}), "oci:/images:base"});
  ASSERT_NE(row(several, "php"), nullptr);
  EXPECT_EQ(row(several, "php")->packages, std::vector<std::string>{"php8.5-cli"});
  EXPECT_NE(row(several, "php")->why.find("the version the repository means"), std::string::npos);
  for (const char* pkg : {"php8.5-intl", "php8.5-pgsql"}) EXPECT_TRUE(has(several, pkg)) << pkg;
  for (const auto& pkg : several.overlay_packages) EXPECT_FALSE(pkg.starts_with("php8.4")) << pkg;

  std::map<std::string, std::string> only84;
  for (const auto& e : both)
    if (!e.first.starts_with("php8.5")) only84.insert(e);
  Plan one = route({c, bare_base(), Candidates(only84, {}), "oci:/images:base"});
  EXPECT_EQ(row(one, "php")->packages, std::vector<std::string>{"php8.4-cli"});
  for (const char* pkg : {"php8.4-intl", "php8.4-pgsql"}) EXPECT_TRUE(has(one, pkg)) << pkg;
  for (const auto& pkg : one.overlay_packages) EXPECT_FALSE(pkg.starts_with("php8.5")) << pkg;
  bool said = false;
  for (const auto& d : one.decisions)
    said |= d.package == "deb:php8.5-intl" && d.why == "php8.5-intl is installed as php8.4-intl, the extension for "
                                                          "the sandbox's PHP 8.4";
  EXPECT_TRUE(said);

  // A Dockerfile's exact php:8.5.3 the archive lacks: its line's release, not the support's lowest.
  Contract exact = c;
  exact.runtime_floors["php"].provision = "=8.5.3";
  Plan line = route({exact, bare_base(), Candidates(both, {}), "oci:/images:base"});
  EXPECT_EQ(row(line, "php")->packages, std::vector<std::string>{"php8.5-cli"});
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

TEST(RouterEcosystems, AJava21ToolchainIsNotInBookwormSoItIsTemurinsJdk) {
  Plan p = plan("jvm-gradle-kotlin");
  const Row* java = row(p, "java");
  ASSERT_NE(java, nullptr);
  EXPECT_EQ(layer_name(java->layer), std::string("task-toolchain"));
  // .sdkmanrc's 21.0.2-tem is the version the repository means; the line is Gradle's 21.
  EXPECT_NE(java->why.find("the newest java 21.x release at or above 21.0.2 from https://api.adoptium.net"),
            std::string::npos)
      << java->why;
  EXPECT_NE(java->why.find("the archive has openjdk-17-jdk-headless 17.0.13+11-1~deb12u1"), std::string::npos) << java->why;
  ASSERT_TRUE(java->toolchain);
  EXPECT_EQ(java->toolchain->range, "=21.0.2");  // a pin: provision installs that release
  EXPECT_EQ(java->toolchain->version, "21.0.2");
  EXPECT_EQ(java->toolchain->url,  // Adoptium's architecture names: x64, aarch64
            "https://api.adoptium.net/v3/binary/latest/21/ga/linux/x64/jdk/hotspot/normal/eclipse");
  EXPECT_EQ(layer_name(row(p, "gradle")->layer), std::string("project-bootstrap"));
}

TEST(RouterEcosystems, PhoenixTakesDebiansElixirButNotItsOldErlang) {
  Plan p = plan("elixir-phoenix-nifs");
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | elixir | >=1.14.0 <2.0.0 | overlay | elixir",
                         "runtime | erlang | =26.2.5 | unrouted",
                         "toolchain | native build | cc make | overlay | build-essential",
                         "run-lib | ca-certificates | installed | overlay | ca-certificates",
                         "run-lib | git | installed | overlay | git",
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

TEST(RouterEcosystems, DotnetHasNoDebianPackageSoItIsMicrosoftsSdk) {
  Plan p = plan("dotnet-webapi");
  EXPECT_EQ(rows(p), (std::vector<std::string>{
                         "runtime | dotnet | >=8.0.204 <8.1.0 | task-toolchain",  // global.json bounds it
                         "run-lib | libc6 | installed | overlay | libc6",
                         "run-lib | libgcc-s1 | installed | overlay | libgcc-s1",
                         "run-lib | libgssapi-krb5-2 | installed | overlay | libgssapi-krb5-2",
                         "run-lib | libicu72 | installed | overlay | libicu72",
                         "run-lib | libssl3 | installed | overlay | libssl3",
                         "run-lib | libstdc++6 | installed | overlay | libstdc++6",
                         "run-lib | zlib1g | installed | overlay | zlib1g",
                         "egress | api.nuget.org | read-only | egress",
                         "egress | pkgs.dev.azure.com | read-only | egress",
                     }));
  const Row* dotnet = row(p, "dotnet");
  // global.json's 8.0.204 with latestFeature: the 8.0 channel from 8.0.204 on.
  EXPECT_NE(dotnet->why.find("the newest dotnet 8.0.x release at or above 8.0.204 from "
                             "https://builds.dotnet.microsoft.com/dotnet"),
            std::string::npos)
      << dotnet->why;
  EXPECT_NE(dotnet->why.find("no Debian package of dotnet"), std::string::npos) << dotnet->why;
  ASSERT_TRUE(dotnet->toolchain);
  EXPECT_EQ(dotnet->toolchain->range, ">=8.0.204 <8.1.0");
  EXPECT_EQ(dotnet->toolchain->url,
            "https://builds.dotnet.microsoft.com/dotnet/Sdk/8.0.204/dotnet-sdk-8.0.204-linux-x64.tar.gz");
  EXPECT_EQ(dotnet->toolchain->hosts, std::vector<std::string>{"builds.dotnet.microsoft.com"});
  // The SDK loads ICU and the rest from the system: rows of the toolchain.
  for (const Row& r : p.rows) {
    if (r.kind == Kind::kRunLib) {
      EXPECT_EQ(r.required_by, std::vector<std::string>{"toolchain:dotnet"}) << r.name;
    }
  }
}

// A yarn 1 lockfile wants yarn >=1.0.0 <2.0.0: the bootstrap installs the
// newest of that line (npm takes the range), not 1.0.0 from 2017.
TEST(RouterEcosystems, AYarnClassicBootstrapInstallsTheNewestOfItsLine) {
  Plan p = plan("node-yarn-classic");
  const Row* yarn = row(p, "yarn");
  ASSERT_NE(yarn, nullptr);
  EXPECT_EQ(layer_name(yarn->layer), std::string("project-bootstrap"));
  EXPECT_NE(yarn->why.find("npm install -g yarn@\">=1.0.0 <2.0.0\""), std::string::npos) << yarn->why;
}

}  // namespace
}  // namespace strata::contract::route
