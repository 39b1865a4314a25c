// Reviewed expectations for the JVM, Elixir and .NET fixture repositories,
// each written from what real projects of the kind state (a Spring Boot
// multi-module Maven build with the wrapper, a Kotlin Spring service on
// Gradle's Kotlin DSL with a toolchain, a Phoenix app with NIF
// dependencies, an ASP.NET Core solution with a private feed), and their
// malformed counterparts: a warning naming the file, never a crash.
#include "fixture_support.hpp"

namespace strata::contract::testing {
namespace {

std::vector<std::string> hosts(const Contract& c) {
  std::vector<std::string> out;
  for (const auto& h : c.egress_hosts) out.push_back(h.host + " " + egress_origin_name(h.origin));
  return out;
}

bool has_ecosystem(const Contract& c, const std::string& e) {
  return std::find(c.ecosystems.begin(), c.ecosystems.end(), e) != c.ecosystems.end();
}

TEST(JvmFixtures, SpringBootMavenModulesWithTheWrapper) {
  Contract c = scan_fixture("jvm-maven-spring");
  EXPECT_TRUE(has_ecosystem(c, "java"));
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  ASSERT_EQ(java->constraints.size(), 4u);
  // The module's compiler plugin names ${java.version}, which its parent pom in the tree sets.
  EXPECT_EQ(java->constraints[0].source.file, "api/pom.xml");
  EXPECT_EQ(java->constraints[0].source.field, "maven-compiler-plugin.release");
  EXPECT_EQ(java->constraints[0].source.value, "${java.version} = 17");
  EXPECT_EQ(java->constraints[1].source.field, "properties.java.version");
  // The builder stage's maven image tag names its JDK (tested); the final stage's JRE is the pin.
  EXPECT_EQ(java->constraints[2].source.value, "maven:3.9.6-eclipse-temurin-17");
  EXPECT_EQ(constraint_kind_name(java->constraints[2].kind), std::string("tested"));
  EXPECT_EQ(java->constraints[3].source.value, "eclipse-temurin:17-jre-jammy");
  EXPECT_EQ(java->floor, "17.0.0");
  EXPECT_EQ(java->satisfying, ">=17.0.0");
  EXPECT_EQ(java->provision, ">=17.0.0 <18.0.0");
  // The wrapper pins Maven 3.9.6: no Maven from Debian is asked for.
  const RuntimeFloor* maven = floors(c, "maven");
  ASSERT_NE(maven, nullptr);
  EXPECT_EQ(maven->pin, "=3.9.6");
  ASSERT_EQ(maven->constraints.size(), 2u);
  EXPECT_EQ(maven->constraints[0].source.file, ".mvn/wrapper/maven-wrapper.properties");
  EXPECT_EQ(maven->tested, std::vector<std::string>{"=3.9.6"});
  EXPECT_EQ(hosts(c), (std::vector<std::string>{"packages.confluent.io config", "repo.maven.apache.org config",
                                                "repo.spring.io config", "repo1.maven.org default"}));
  // distributionManagement is where the project deploys, not what a build fetches.
  EXPECT_EQ(egress(c, "nexus.deploy.example.com"), nullptr);
  EXPECT_TRUE(c.native_packages.empty());
  EXPECT_TRUE(c.warnings.empty());
}

// The enforcer's rules live in <pluginManagement> and run where <plugins>
// names the plugin; the builder stage is Ubuntu's, so its apt names are
// Ubuntu's and become Debian 12's packages.
TEST(JvmFixtures, ManagedEnforcerRulesAndAnUbuntuBuildersAptNames) {
  Contract c = scan_fixture("jvm-maven-ubuntu-builder");
  const RuntimeFloor* maven = floors(c, "maven");
  ASSERT_NE(maven, nullptr);
  EXPECT_EQ(maven->floor, "3.8.0");
  EXPECT_EQ(maven->constraints[0].source.field, "maven-enforcer-plugin requireMavenVersion");
  EXPECT_EQ(floors(c, "java")->floor, "21.0.0");
  EXPECT_NE(lib(c.build_libs, "firefox-esr"), nullptr);
  EXPECT_NE(lib(c.build_libs, "default-libmysqlclient-dev"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "firefox"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "libmysqlclient-dev"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "firefox-esr")->evidence.front().field, "line 3");
  // What the renamed -dev package loads at run time follows its Debian name.
  EXPECT_NE(lib(c.run_libs, "libmariadb3"), nullptr);
  bool said = false;
  for (const auto& n : c.notes)
    said |= n.file == "Dockerfile" && n.message == "line 3: firefox is not a Debian 12 package (another "
                                                   "distribution's or an older Debian release's name); Debian "
                                                   "12's firefox-esr is provisioned";
  EXPECT_TRUE(said);
}

TEST(JvmFixtures, KotlinGradleToolchainPluginsAndWrapper) {
  Contract c = scan_fixture("jvm-gradle-kotlin");
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  ASSERT_EQ(java->constraints.size(), 5u);  // the commented-out sourceCompatibility is not one
  EXPECT_EQ(java->constraints[0].source.file, ".sdkmanrc");
  EXPECT_EQ(java->constraints[0].range, "=21.0.2");
  EXPECT_EQ(java->constraints[1].source.file, "app/build.gradle.kts");
  EXPECT_EQ(java->constraints[1].source.field, "line 14 java.toolchain.languageVersion");
  EXPECT_EQ(java->constraints[1].range, ">=21.0.0 <22.0.0");
  // The toolchain's release is also the project's floor: what it compiles runs on 21 and later.
  EXPECT_EQ(constraint_kind_name(java->constraints[2].kind), std::string("support"));
  EXPECT_EQ(java->constraints[2].range, ">=21.0.0");
  EXPECT_EQ(java->floor, "21.0.0");
  // The build stage's JDK image is what the build runs on (tested); the final stage's JRE, what it ships on.
  EXPECT_EQ(java->constraints[3].source.value, "eclipse-temurin:21-jdk");
  EXPECT_EQ(constraint_kind_name(java->constraints[3].kind), std::string("tested"));
  EXPECT_EQ(java->constraints[4].source.value, "eclipse-temurin:21-jre");
  EXPECT_EQ(java->constraints[4].range, ">=21.0.0 <22.0.0");
  EXPECT_EQ(java->provision, "=21.0.2");
  const RuntimeFloor* gradle = floors(c, "gradle");
  ASSERT_NE(gradle, nullptr);
  EXPECT_EQ(gradle->pin, "=8.8.0");
  EXPECT_EQ(gradle->constraints[0].source.value, "https://services.gradle.org/distributions/gradle-8.8-bin.zip");
  // The commented-out jitpack repository is not reached.
  EXPECT_EQ(hosts(c), (std::vector<std::string>{"packages.confluent.io config", "plugins.gradle.org config",
                                                "repo.maven.apache.org config", "services.gradle.org config"}));
  EXPECT_TRUE(c.warnings.empty());
}

// A Gradle toolchain stated through a Gradle property (gradle.properties at
// the root, read from a module two directories down), a version catalog's
// version, or providers.gradleProperty: the value Gradle would use. A stale
// .java-version no CI job tests does not outvote it.
TEST(JvmFixtures, GradleToolchainFromPropertiesAndTheVersionCatalog) {
  Contract c = scan_fixture("jvm-gradle-properties");
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  // (The toolchains are not floors of their own here: sourceCompatibility states the release.)
  ASSERT_EQ(java->constraints.size(), 5u);
  EXPECT_EQ(java->constraints[1].source.file, "backend/app/build.gradle");
  EXPECT_EQ(java->constraints[1].source.value, "javaVersion.toInteger() = 25 (gradle.properties)");
  EXPECT_EQ(java->constraints[1].range, ">=25.0.0 <26.0.0");
  EXPECT_EQ(java->constraints[2].source.value, "libs.versions.java.toolchain.get() = 25 (gradle/libs.versions.toml)");
  EXPECT_EQ(java->constraints[3].source.field, "line 10 sourceCompatibility");
  EXPECT_EQ(java->constraints[3].range, ">=25.0.0");
  EXPECT_EQ(java->floor, "25.0.0");
  EXPECT_EQ(java->provision, ">=25.0.0 <26.0.0");
  ASSERT_FALSE(java->conflicts.empty());
  EXPECT_TRUE(java->conflicts[0].starts_with(".java-version .java-version=\"21.0\" pins >=21.0.0 <21.1.0, which no CI job tests"));
  EXPECT_TRUE(c.warnings.empty());
}

// A JDK 21 toolchain that compiles with `options.release = 17` makes classes
// Java 17 runs: the floor is 17, the JDK to provision the toolchain's 21.
TEST(JvmFixtures, AToolchainCompilingForAnOlderReleaseKeepsThatFloor) {
  Contract c = scan_fixture("jvm-gradle-toolchain-release");
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  EXPECT_EQ(java->floor, "17.0.0");
  EXPECT_EQ(java->provision, ">=21.0.0 <22.0.0");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(JvmFixtures, GroovyLibraryCompatibilityReleaseAndRepositories) {
  Contract c = scan_fixture("jvm-gradle-groovy");
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  ASSERT_EQ(java->constraints.size(), 5u);
  // Gradle's daemon JVM criteria (gradle/gradle-daemon-jvm.properties) pin the JDK too.
  EXPECT_EQ(java->constraints[4].source.field, "toolchainVersion");
  EXPECT_EQ(constraint_kind_name(java->constraints[4].kind), std::string("pin"));
  EXPECT_EQ(java->constraints[1].source.field, "line 10 sourceCompatibility");
  EXPECT_EQ(java->constraints[1].range, ">=8.0.0");  // JavaVersion.VERSION_1_8
  EXPECT_EQ(java->constraints[2].range, ">=8.0.0");  // '1.8'
  EXPECT_EQ(java->constraints[3].source.field, "line 18 options.release");
  EXPECT_EQ(java->floor, "11.0.0");  // --release 11 needs a JDK 11, whatever the source level
  EXPECT_EQ(java->pin, ">=11.0.0 <12.0.0");
  // No wrapper: Gradle itself is needed, at no stated version.
  ASSERT_NE(floors(c, "gradle"), nullptr);
  EXPECT_TRUE(floors(c, "gradle")->floor.empty());
  // Core plugins (java-library, maven-publish) come with Gradle: no plugin portal.
  EXPECT_EQ(hosts(c), (std::vector<std::string>{"dl.google.com config", "jitpack.io config",
                                                "repo.maven.apache.org config"}));
  EXPECT_TRUE(c.warnings.empty());
}

// A Gradle build's front end: the Node the org.siouan frontend and node-gradle
// plugins download (node-gradle only with download = true), the pnpm it pins,
// the hosts they download from; and a Java release held in a variable.
TEST(JvmFixtures, GradleFrontendPluginsAndAJavaVersionVariable) {
  Contract c = scan_fixture("jvm-gradle-frontend");
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  EXPECT_EQ(java->floor, "21.0.0");
  EXPECT_EQ(java->constraints[0].source.value, "targetJavaVersion = JavaVersion.VERSION_21");
  const RuntimeFloor* node = floors(c, "node");
  ASSERT_NE(node, nullptr);
  ASSERT_EQ(node->constraints.size(), 2u);  // not docs-site's, whose plugin uses the Node on the PATH
  EXPECT_EQ(node->constraints[0].source.file, "ui/build.gradle");
  EXPECT_EQ(node->constraints[0].source.field, "line 6 frontend nodeVersion");
  EXPECT_EQ(node->constraints[0].range, "=22.12.0");
  EXPECT_EQ(node->constraints[1].source.file, "web/build.gradle.kts");
  EXPECT_EQ(node->constraints[1].range, "=20.11.1");
  ASSERT_NE(floors(c, "pnpm"), nullptr);
  EXPECT_EQ(floors(c, "pnpm")->pin, "=9.1.0");
  EXPECT_EQ(origin_of(c, "nodejs.org"), "config");
  EXPECT_EQ(origin_of(c, "nodejs.mirror.example.org"), "config");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(JvmFixtures, MalformedFilesAreWarningsNamingThem) {
  Contract c = scan_fixture("jvm-maven-malformed");
  EXPECT_TRUE(warned(c, "pom.xml", "malformed XML at line 7"));
  EXPECT_TRUE(warned(c, "build.gradle", "is not a Java release"));
  EXPECT_TRUE(warned(c, "gradle/wrapper/gradle-wrapper.properties", "no distributionUrl"));
  EXPECT_TRUE(warned(c, ".java-version", "no Java version"));
  // Still a JVM build: a JDK is needed, at no version anything readable states.
  ASSERT_NE(floors(c, "java"), nullptr);
  EXPECT_TRUE(floors(c, "java")->floor.empty());
  EXPECT_EQ(origin_of(c, "repo.maven.apache.org"), "config");  // build.gradle's mavenCentral()
}

// What the tests themselves reach: Testcontainers (a Docker daemon pulling
// from Docker Hub), Playwright (its browser builds and Chromium's libraries),
// read from pom dependencies, Gradle's string notation and the version
// catalog; the frontend plugin's Node and npm; the enforcer's floors.
TEST(JvmFixtures, EndToEndTestsFrontendPluginAndEnforcer) {
  Contract c = scan_fixture("jvm-e2e-tests");
  const NativePackage* pw = native(c, "maven", "com.microsoft.playwright:playwright");
  ASSERT_NE(pw, nullptr);
  EXPECT_EQ(build_kind_name(pw->build), std::string("download"));
  EXPECT_EQ(pw->version, "1.52.0");  // ${playwright.version}; the commented-out 1.40.0 is not read
  EXPECT_EQ(pw->download_hosts, (std::vector<std::string>{"cdn.playwright.dev", "playwright.download.prss.microsoft.com"}));
  EXPECT_EQ(egress(c, "playwright.azureedge.net"), nullptr);  // nor the catalog's unused 1.40.0 alias
  EXPECT_EQ(native(c, "maven", "io.quarkiverse.playwright"), nullptr);  // a constraints { } pin
  EXPECT_TRUE(required_by(c.run_libs, "libgbm1", "maven:com.microsoft.playwright:playwright"));
  EXPECT_TRUE(required_by(c.run_libs, "libnss3", "maven:com.microsoft.playwright:playwright"));
  EXPECT_EQ(lib(c.run_libs, "libgbm1")->purpose, Purpose::kBuild);  // the tests run the browser
  // org.testcontainers:postgresql (pom, test scope) and :kafka (catalog) are the group's entry, once.
  const NativePackage* tc = native(c, "maven", "org.testcontainers");
  ASSERT_NE(tc, nullptr);
  EXPECT_EQ(build_kind_name(tc->build), std::string("none"));
  ASSERT_EQ(tc->evidence.size(), 3u);  // two dependencies and the table's entry
  EXPECT_EQ(tc->evidence[0].field, "dependency org.testcontainers:postgresql");
  EXPECT_EQ(tc->evidence[1].file, "gradle/libs.versions.toml");
  EXPECT_EQ(tc->evidence[1].value, "org.testcontainers:kafka");
  for (const char* h : {"registry-1.docker.io", "auth.docker.io", "production.cloudflare.docker.com"}) {
    ASSERT_NE(egress(c, h), nullptr) << h;
    EXPECT_NE(egress(c, h)->reason.find("Docker daemon pulls"), std::string::npos);
  }
  // The BOM in <dependencyManagement> is no dependency; postgresql's JDBC driver needs nothing.
  // A build plugin is looked up like a dependency: buildnumber-maven-plugin runs git.
  EXPECT_EQ(c.native_packages.size(), 3u);
  ASSERT_NE(native(c, "maven", "org.codehaus.mojo:buildnumber-maven-plugin"), nullptr);
  EXPECT_TRUE(required_by(c.run_libs, "git", "maven:org.codehaus.mojo:buildnumber-maven-plugin"));
  EXPECT_EQ(lib(c.run_libs, "git")->purpose, Purpose::kBuild);
  // frontend-maven-plugin: the client installs Node 22.12.0 and npm 10.9.2, from nodejs.org and the registry.
  EXPECT_EQ(floors(c, "node")->provision, "=22.12.0");
  EXPECT_EQ(floors(c, "node")->provision_reason, "the version the sub-projects that pin one pin");
  EXPECT_EQ(floors(c, "node")->constraints[0].source.value, "${node.version} = 22.12.0");
  EXPECT_EQ(floors(c, "npm")->provision, "=10.9.2");
  EXPECT_EQ(origin_of(c, "nodejs.org"), "config");
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "config");
  // maven-enforcer-plugin: Maven [3.9,4) and Java [21,) are what the project supports.
  EXPECT_EQ(floors(c, "maven")->satisfying, ">=3.9.0 <4.0.0");
  EXPECT_EQ(floors(c, "maven")->constraints[0].source.field, "maven-enforcer-plugin requireMavenVersion");
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_EQ(java->constraints.size(), 4u);  // and next.yml's matrix
  EXPECT_EQ(java->constraints[1].source.field, "maven-enforcer-plugin requireJavaVersion");
  EXPECT_EQ(java->constraints[1].source.value, "[21.0,)");  // a JDK version: 21.0 is release 21
  EXPECT_EQ(java->floor, "21.0.0");
  // CI tests 21 and 25; the build compiles for 21, the JDK it is tested on first.
  EXPECT_EQ(java->tested, (std::vector<std::string>{">=21.0.0 <22.0.0", ">=25.0.0 <26.0.0"}));
  EXPECT_EQ(java->provision, ">=21.0.0 <22.0.0");
  EXPECT_EQ(java->provision_reason, "the Java release the build compiles for, which CI tests");
  EXPECT_TRUE(c.warnings.empty());
}

// What a test job runs that the runner has: the database clients that load
// the schemas, and the programs of the repository's own script it runs. Not
// the coverage upload's curl, nor what the release job runs.
TEST(JvmFixtures, ProgramsTheTestJobRunsAndGitHubRawRepositories) {
  Contract c = scan_fixture("jvm-e2e-tests");
  EXPECT_TRUE(required_by(c.build_libs, "postgresql-client", "ci:.github/workflows/ci.yml"));
  EXPECT_TRUE(required_by(c.build_libs, "default-mysql-client", "ci:.github/workflows/ci.yml"));
  const SystemLib* curl = lib(c.build_libs, "curl");
  ASSERT_NE(curl, nullptr);
  ASSERT_EQ(curl->evidence.size(), 1u);
  EXPECT_EQ(curl->evidence[0].file, "bin/e2e");
  EXPECT_EQ(curl->evidence[0].field, "line 9");
  EXPECT_EQ(egress(c, "coverage.example.org"), nullptr);
  // A job that builds and diffs generated code runs no tests: its unzip and git are its own.
  for (const char* release_only : {"gnupg", "zip", "unzip", "git"}) {
    EXPECT_FALSE(required_by(c.build_libs, release_only, "ci:.github/workflows/ci.yml")) << release_only;
    EXPECT_FALSE(required_by(c.run_libs, release_only, "ci:.github/workflows/ci.yml")) << release_only;
  }
  EXPECT_EQ(lib(c.build_libs, "unzip"), nullptr);
  // Not a here-document's text (bin/e2e's usage, a step's `cat <<EOF`), nor a
  // macOS job's programs; but what follows `$((1<<4))` and the here-document is read.
  EXPECT_EQ(lib(c.build_libs, "sqlite3"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "ldap-utils"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "redis-tools"), nullptr);
  ASSERT_NE(lib(c.build_libs, "rsync"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "rsync")->evidence.front().file, "bin/e2e");
  // bin/e2e sources its helpers from beside itself (`source "$(dirname "$0")/e2e-lib.sh"`).
  ASSERT_NE(lib(c.build_libs, "ffmpeg"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "ffmpeg")->evidence.front().file, "bin/e2e-lib.sh");
  EXPECT_TRUE(required_by(c.build_libs, "ffmpeg", "ci:.github/workflows/ci.yml"));
  // next.yml: the Java the job lets fail (`continue-on-error: ${{ matrix.java == 26 }}`)
  // is tried, not tested; the Rust of `toolchain: ${{ env.RUST }}` is the workflow env's.
  const RuntimeFloor* java = floors(c, "java");
  ASSERT_NE(java, nullptr);
  EXPECT_EQ(java->tested, (std::vector<std::string>{">=21.0.0 <22.0.0", ">=25.0.0 <26.0.0"}));
  // Rust channels float (stable, nightly-…: no version, no warning) and the
  // matrix keeps its readable entry; dtolnay/rust-toolchain@1.80 is its ref's.
  const RuntimeFloor* rust = floors(c, "rust");
  ASSERT_NE(rust, nullptr);
  // (A toolchain with its host triple, 1.72.0-x86_64-unknown-linux-gnu, is release 1.72.0.)
  EXPECT_EQ(rust->tested, (std::vector<std::string>{">=1.70.0 <1.71.0", "=1.72.0", ">=1.80.0 <1.81.0", "=1.83.0"}));
  EXPECT_EQ(rust->constraints.front().source.file, ".github/workflows/next.yml");
  // python-package.yml's `build` job runs pytest: a test job, whatever its file is called.
  ASSERT_NE(floors(c, "python"), nullptr);
  EXPECT_EQ(floors(c, "python")->tested, std::vector<std::string>{">=3.12.0 <3.13.0"});
  // A contributor's guide installs what working on the project needs, build tool or not.
  EXPECT_TRUE(required_by(c.run_libs, "python3-venv", "docs:CONTRIBUTING.md"));
  EXPECT_EQ(lib(c.run_libs, "the"), nullptr);  // prose ("apt install the dependencies listed …") is no command
  EXPECT_EQ(lib(c.run_libs, "python3-venv")->purpose, Purpose::kBuild);
  // A lint job's `npm install -g npm@9.1.0` is its own npm, not a version the tests run.
  ASSERT_NE(floors(c, "npm"), nullptr);
  EXPECT_TRUE(floors(c, "npm")->tested.empty());
  EXPECT_TRUE(c.warnings.empty());
  // A Maven repository kept as files in a GitHub repository is served from raw.githubusercontent.com.
  EXPECT_EQ(origin_of(c, "github.com"), "config");
  ASSERT_NE(egress(c, "raw.githubusercontent.com"), nullptr);
  EXPECT_NE(egress(c, "raw.githubusercontent.com")->reason.find("acme-maven-repository"), std::string::npos);
}

// Testcontainers images from registries other than Docker Hub, named in test
// code: their registries are hosts the tests reach. Not Docker Hub's short
// names, a path, a URL or a registry on localhost.
TEST(JvmFixtures, ImagesTheTestsStartFromOtherRegistries) {
  Contract c = scan_fixture("jvm-e2e-tests");
  for (const char* h : {"docker.elastic.co", "mcr.microsoft.com"}) {
    const EgressHost* e = egress(c, h);
    ASSERT_NE(e, nullptr) << h;
    EXPECT_EQ(origin_of(c, h), "install-time");
    EXPECT_EQ(e->evidence.front().file, "server/src/test/java/com/acme/it/SearchIT.java");
    EXPECT_NE(e->reason.find("Testcontainers"), std::string::npos);
  }
  EXPECT_EQ(egress(c, "mcr.microsoft.com")->evidence.front().field, "line 14");
  EXPECT_EQ(egress(c, "localhost"), nullptr);
  EXPECT_EQ(egress(c, "www.testcontainers.org"), nullptr);
  EXPECT_EQ(egress(c, "src"), nullptr);
}

TEST(ElixirFixtures, PhoenixWithNifsGitDepsAndToolVersions) {
  Contract c = scan_fixture("elixir-phoenix-nifs");
  EXPECT_TRUE(has_ecosystem(c, "elixir"));
  const RuntimeFloor* elixir = floors(c, "elixir");
  ASSERT_NE(elixir, nullptr);
  EXPECT_EQ(elixir->floor, "1.14.0");  // mix.exs `elixir: "~> 1.14"`, not the commented-out ~> 1.12
  EXPECT_EQ(elixir->satisfying, ">=1.14.0 <2.0.0");
  EXPECT_EQ(elixir->pin, "=1.16.3");  // .tool-versions 1.16.3-otp-26
  EXPECT_EQ(elixir->provision, "=1.16.3");
  // CI's matrix runs 1.15.8 and 1.16.3 (erlef/setup-beam), on OTP 26.2.5.
  EXPECT_EQ(elixir->tested, (std::vector<std::string>{"=1.15.8", "=1.16.3"}));
  EXPECT_EQ(floors(c, "erlang")->pin, "=26.2.5");
  EXPECT_EQ(floors(c, "erlang")->tested, std::vector<std::string>{"=26.2.5"});
  EXPECT_EQ(build_of(c, "hex", "bcrypt_elixir"), "compile");
  EXPECT_EQ(build_of(c, "hex", "exqlite"), "compile");
  EXPECT_EQ(build_of(c, "hex", "elixir_make"), "compile");
  EXPECT_EQ(native(c, "hex", "exqlite")->version, "0.21.0");
  EXPECT_EQ(build_of(c, "hex", "phoenix"), "<absent>");  // pure Elixir
  EXPECT_EQ(build_of(c, "hex", "comeonin"), "<absent>");
  EXPECT_TRUE(c.native_build_required);
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "hex:bcrypt_elixir"));
  EXPECT_TRUE(has_command(c, "make"));
  EXPECT_EQ(floors(c, "rust"), nullptr);  // no rustler
  // The GitHub dependency, from mix.exs and from its lock entry.
  ASSERT_NE(egress(c, "github.com"), nullptr);
  ASSERT_GE(egress(c, "github.com")->evidence.size(), 2u);
  EXPECT_EQ(egress(c, "github.com")->evidence[0].field, "line 30 github");
  EXPECT_EQ(egress(c, "github.com")->evidence[1].field, "line 9 heroicons");
  EXPECT_EQ(egress(c, "github.com")->evidence[1].value, "https://github.com/tailwindlabs/heroicons.git");
  // Phoenix's asset tools download their binaries: esbuild from the npm registry, tailwindcss from GitHub.
  EXPECT_EQ(build_of(c, "hex", "esbuild"), "download");
  EXPECT_EQ(build_of(c, "hex", "tailwind"), "download");
  EXPECT_EQ(hosts(c), (std::vector<std::string>{"builds.hex.pm default", "github.com config", "hex.pm default",
                                                "objects.githubusercontent.com install-time",
                                                "registry.npmjs.org install-time",
                                                "release-assets.githubusercontent.com install-time",
                                                "repo.hex.pm default"}));
  EXPECT_TRUE(c.warnings.empty());
}

// The Dockerfile `mix phx.gen.release --docker` writes: the builder image is an
// ARG built from other ARGs, in quotes; its hexpm/elixir tag names Elixir and OTP.
// .tool-versions pins 1.17.3 and OTP 27.1.2; every CI job and the
// repository's image run 1.18.4 on OTP 27.3.4.11 (four numbers, kept). The
// version file is stale: CI's version is provisioned and the pin reported.
// CI alone disagreeing with the pin does not outvote it.
TEST(ElixirFixtures, APinNoCiJobTestsBesideTheImageCiBuildsIsStale) {
  Contract c = scan_fixture("elixir-stale-tool-versions");
  const RuntimeFloor* elixir = floors(c, "elixir");
  ASSERT_NE(elixir, nullptr);
  EXPECT_EQ(elixir->satisfying, ">=1.17.0 <2.0.0");
  EXPECT_EQ(elixir->pin, "=1.17.3");
  EXPECT_EQ(elixir->provision, "=1.18.4");
  ASSERT_EQ(elixir->conflicts.size(), 1u);
  EXPECT_EQ(elixir->conflicts[0], ".tool-versions elixir=\"1.17.3-otp-27\" pins =1.17.3, which no CI job tests; CI "
                                  "tests =1.18.4, which is provisioned");
  const RuntimeFloor* erlang = floors(c, "erlang");
  ASSERT_NE(erlang, nullptr);
  EXPECT_EQ(erlang->provision, "=27.3.4.11");
  EXPECT_EQ(erlang->satisfying, "=27.3.4.11");  // the stale pin bounds nothing
  // AppSignal compiles its extension against the agent it downloads as it compiles.
  EXPECT_EQ(build_of(c, "hex", "appsignal"), "compile");
  for (const char* host : {"appsignal-agent-releases.global.ssl.fastly.net", "d135dj0rjqvssy.cloudfront.net"}) {
    ASSERT_NE(egress(c, host), nullptr) << host;
    EXPECT_EQ(origin_of(c, host), "install-time");
  }

  // The same with a single-stage Dockerfile, whose FROM is a pin of its own:
  // of the pins that disagree, the one CI tests is provisioned.
  Contract pins = scan_fixture("elixir-pins-disagree");
  EXPECT_EQ(floors(pins, "elixir")->pin, "=1.18.4");
  EXPECT_EQ(floors(pins, "elixir")->provision, "=1.18.4");
  ASSERT_EQ(floors(pins, "elixir")->conflicts.size(), 1u);
  EXPECT_TRUE(floors(pins, "elixir")->conflicts[0].starts_with(
      ".tool-versions elixir=\"1.17.3-otp-27\" pins =1.17.3, which no CI job tests; Dockerfile FROM="));
  EXPECT_TRUE(floors(pins, "elixir")->conflicts[0].ends_with(" pins =1.18.4, which CI tests"));
  EXPECT_EQ(floors(pins, "erlang")->provision, "=27.3.4.11");

  Contract ci_only = scan_fixture("elixir-ci-beside-pin");
  EXPECT_EQ(floors(ci_only, "elixir")->provision, "=1.17.3");
  EXPECT_EQ(floors(ci_only, "erlang")->provision, "=27.1.2");
  EXPECT_EQ(floors(ci_only, "erlang")->tested, std::vector<std::string>{"=27.3.4.11"});
  EXPECT_TRUE(floors(ci_only, "elixir")->conflicts.empty());
}

// A CI matrix is several versions, never "the one CI tests": it neither
// makes a pin stale nor narrows a line pin to one release.
TEST(PinFixtures, AMatrixNeitherOutvotesNorNarrowsAPin) {
  Contract line = scan_fixture("node-line-pin-matrix");
  EXPECT_EQ(floors(line, "node")->provision, ">=20.0.0 <21.0.0");
  Contract beside = scan_fixture("node-pin-beside-matrix");
  EXPECT_EQ(floors(beside, "node")->provision, "=18.19.0");
  EXPECT_TRUE(floors(beside, "node")->conflicts.empty());
}

// Heroku's buildpack configurations at the root pin what the app's build
// installs: Elixir and OTP (elixir_buildpack.config), Node
// (phoenix_static_buildpack.config). A value that names no release is a note.
TEST(ElixirFixtures, HerokuBuildpackConfigsPinElixirOtpAndNode) {
  Contract c = scan_fixture("elixir-heroku-buildpacks");
  ASSERT_NE(floors(c, "elixir"), nullptr);
  EXPECT_EQ(floors(c, "elixir")->provision, "=1.14.5");
  ASSERT_EQ(floors(c, "elixir")->constraints.size(), 2u);  // mix.exs's support, then the buildpack's
  EXPECT_EQ(floors(c, "elixir")->constraints[1].source.field, "line 2 elixir_version");
  EXPECT_EQ(floors(c, "elixir")->constraints[1].source.value, "v1.14.5");
  ASSERT_NE(floors(c, "erlang"), nullptr);
  EXPECT_EQ(floors(c, "erlang")->provision, "=25.3.2.4");
  ASSERT_NE(floors(c, "node"), nullptr);
  EXPECT_EQ(floors(c, "node")->provision, "=16.13.2");
  bool noted = false;
  for (const auto& n : c.notes)
    noted |= n.file == "phoenix_static_buildpack.config" && n.message == "npm_version \"latest\" names no release; not used";
  EXPECT_TRUE(noted);
  EXPECT_TRUE(c.warnings.empty());
}

TEST(ElixirFixtures, PhoenixReleaseDockerfileNamesElixirAndOtp) {
  Contract c = scan_fixture("elixir-phoenix-release");
  const RuntimeFloor* elixir = floors(c, "elixir");
  ASSERT_NE(elixir, nullptr);
  ASSERT_EQ(elixir->constraints.size(), 2u);
  EXPECT_EQ(elixir->constraints[1].source.value, "hexpm/elixir:1.15.7-erlang-26.1.2-debian-bookworm-20231009-slim");
  EXPECT_EQ(elixir->tested, std::vector<std::string>{"=1.15.7"});
  EXPECT_EQ(elixir->provision, "=1.15.7");  // the newest tested version in the support
  const RuntimeFloor* erlang = floors(c, "erlang");
  ASSERT_NE(erlang, nullptr);
  EXPECT_EQ(erlang->tested, std::vector<std::string>{"=26.1.2"});
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "dockerfile:Dockerfile"));
  // The final stage `FROM ${RUNNER_IMAGE} AS app`: a variable its ARG
  // resolves to an image picks no stage, so the stage is the image and what
  // it installs is what running it needs.
  ASSERT_NE(lib(c.run_libs, "libstdc++6"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "libstdc++6")->purpose, Purpose::kRun);
  EXPECT_EQ(origin_of(c, "repo.hex.pm"), "default");
}

// A NIF whose prebuilt download the project turns off (System.put_env in
// config.exs; prod.exs's force_build is the release's, not the sandbox's), a
// precompiled C NIF, an ecto.load alias on Postgres, and the official elixir
// image whose tag names the OTP.
TEST(ElixirFixtures, AForcedRustNifPrecompiledCNifAndEctoLoad) {
  Contract c = scan_fixture("elixir-forced-nif");
  const RuntimeFloor* rust = floors(c, "rust");
  ASSERT_NE(rust, nullptr);
  EXPECT_EQ(rust->constraints.front().source.file, "config/config.exs");
  EXPECT_EQ(rust->constraints.front().source.value, "System.put_env(\"MDEX_BUILD\", \"1\")");
  EXPECT_EQ(build_of(c, "hex", "mdex"), "compile");
  EXPECT_EQ(native(c, "hex", "mdex")->reason,
            "rustler_precompiled's build is forced (System.put_env(\"MDEX_BUILD\", \"1\")): the Rust NIF compiles "
            "with cargo");
  EXPECT_EQ(build_of(c, "hex", "explorer"), "<absent>");  // prod.exs only
  EXPECT_TRUE(has_command(c, "cargo"));
  EXPECT_EQ(origin_of(c, "index.crates.io"), "install-time");
  EXPECT_EQ(origin_of(c, "static.crates.io"), "install-time");
  // rustup-init from sh.rustup.rs downloads the toolchain from static.rust-lang.org.
  EXPECT_EQ(origin_of(c, "static.rust-lang.org"), "install-time");
  EXPECT_EQ(egress(c, "static.rust-lang.org")->mirror_env, "RUSTUP_DIST_SERVER");
  // lazy_html's C NIF comes prebuilt from GitHub releases through cc_precompiler, or compiles.
  EXPECT_EQ(build_of(c, "hex", "cc_precompiler"), "download");
  EXPECT_EQ(native(c, "hex", "cc_precompiler")->fallback, "compile");
  EXPECT_EQ(origin_of(c, "objects.githubusercontent.com"), "install-time");
  // ecto.load in the test alias: Ecto's Postgres adapter loads the structure with psql.
  EXPECT_TRUE(required_by(c.run_libs, "postgresql-client", "mix:ecto.load"));
  EXPECT_EQ(lib(c.run_libs, "default-mysql-client"), nullptr);
  // FROM elixir:1.18.3-otp-27-slim names the OTP too.
  ASSERT_NE(floors(c, "erlang"), nullptr);
  EXPECT_EQ(floors(c, "erlang")->pin, ">=27.0.0 <28.0.0");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(ElixirFixtures, MalformedRequirementAndLock) {
  Contract c = scan_fixture("elixir-malformed");
  EXPECT_TRUE(warned(c, "mix.exs", "not an Elixir version requirement"));
  EXPECT_TRUE(warned(c, "mix.lock", "no mix.lock entries could be read"));
  ASSERT_NE(floors(c, "elixir"), nullptr);
  EXPECT_TRUE(floors(c, "elixir")->floor.empty());
}

TEST(DotnetFixtures, GlobalJsonRollForwardTargetFrameworksAndFeeds) {
  Contract c = scan_fixture("dotnet-webapi");
  EXPECT_TRUE(has_ecosystem(c, "dotnet"));
  const RuntimeFloor* sdk = floors(c, "dotnet");
  ASSERT_NE(sdk, nullptr);
  ASSERT_EQ(sdk->constraints.size(), 5u);  // global.json twice: a support and a pin
  EXPECT_EQ(sdk->constraints[0].source.file, "global.json");
  EXPECT_EQ(sdk->constraints[0].range, ">=8.0.204 <8.1.0");  // rollForward latestFeature
  EXPECT_EQ(constraint_kind_name(sdk->constraints[0].kind), std::string("support"));
  EXPECT_EQ(constraint_kind_name(sdk->constraints[1].kind), std::string("pin"));
  // The dotnet host refuses an SDK outside global.json's range: it bounds the
  // support with net8.0 and net6.0;net8.0 (SDK 8).
  EXPECT_EQ(sdk->floor, "8.0.204");
  EXPECT_EQ(sdk->satisfying, ">=8.0.204 <8.1.0");
  EXPECT_EQ(sdk->pin, ">=8.0.204 <8.1.0");
  EXPECT_EQ(sdk->provision, ">=8.0.204 <8.1.0");
  // <clear/> drops nuget.org's default, which the file then adds back; the local folder feed reaches nothing.
  EXPECT_EQ(hosts(c), (std::vector<std::string>{"api.nuget.org config", "pkgs.dev.azure.com config"}));
  EXPECT_TRUE(c.warnings.empty());
}

// An image library with native assets, and a global.json that names a
// runtime-like 10.0.0 which rollForward latestMinor still compares.
TEST(DotnetFixtures, NativeAssetsNeedTheirLibrariesAndAGlobalJsonBelowTheFirstBand) {
  Contract c = scan_fixture("dotnet-skia");
  const RuntimeFloor* sdk = floors(c, "dotnet");
  ASSERT_NE(sdk, nullptr);
  EXPECT_EQ(sdk->pin, ">=10.0.0 <11.0.0");
  EXPECT_EQ(sdk->floor, "10.0.100");  // net10.0
  // SkiaSharp's Linux native assets load fontconfig; SkiaSharp itself is managed
  // code, and Microsoft.Data.Sqlite's e_sqlite3 is bundled.
  EXPECT_EQ(build_of(c, "nuget", "SkiaSharp.NativeAssets.Linux"), "prebuilt");
  EXPECT_TRUE(required_by(c.run_libs, "libfontconfig1", "nuget:SkiaSharp.NativeAssets.Linux"));
  EXPECT_EQ(build_of(c, "nuget", "SkiaSharp"), "<absent>");
  EXPECT_EQ(lib(c.run_libs, "libsqlite3-0"), nullptr);
  // MinVer (Directory.Build.props) runs git as every project builds.
  EXPECT_TRUE(required_by(c.run_libs, "git", "nuget:MinVer"));
  EXPECT_TRUE(c.warnings.empty());
}

// A family entry covers its packages: Microsoft.Playwright.NUnit brings
// Playwright, Testcontainers.PostgreSql Testcontainers; NUnit is nothing.
TEST(DotnetFixtures, BrowserAndContainerTestPackagesByFamily) {
  Contract c = scan_fixture("dotnet-e2e-tests");
  ASSERT_EQ(c.native_packages.size(), 5u);  // and Aspire's SQL Server and Keycloak (below)
  const NativePackage* pw = native(c, "nuget", "Microsoft.Playwright");
  ASSERT_NE(pw, nullptr);
  EXPECT_EQ(pw->evidence.front().value, "Microsoft.Playwright.NUnit");
  EXPECT_TRUE(pw->version.empty());  // the adapter's version is not Playwright's
  EXPECT_TRUE(required_by(c.run_libs, "libxkbcommon0", "nuget:Microsoft.Playwright"));
  EXPECT_EQ(native(c, "nuget", "Testcontainers")->evidence.front().value, "Testcontainers.PostgreSql");
  EXPECT_EQ(origin_of(c, "registry-1.docker.io"), "install-time");
  EXPECT_EQ(origin_of(c, "cdn.playwright.dev"), "install-time");
  EXPECT_EQ(native(c, "nuget", "NUnit"), nullptr);
  // The ChromeDriver package's driver needs the browser itself.
  EXPECT_EQ(build_of(c, "nuget", "Selenium.WebDriver.ChromeDriver"), "prebuilt");
  EXPECT_TRUE(required_by(c.run_libs, "chromium", "nuget:Selenium.WebDriver.ChromeDriver"));
}

// What else a .NET solution reaches or runs: LibMan's CDNs (each library's
// provider, else the default; `filesystem` reaches nothing); the container
// an Aspire hosting integration starts (SQL Server's image is on
// mcr.microsoft.com); a yarn the development image installs with npm; the
// mysql a test job runs, under the name the repository itself installs
// (mariadb-client, which Debian's default-mysql-client only depends on); and
// nothing of a Dockerfile built from its own directory, which packages a
// released build and never sees the checkout.
TEST(DotnetFixtures, LibmanAspireAndWhatTheImagesSay) {
  Contract c = scan_fixture("dotnet-e2e-tests");
  for (const char* host : {"api.cdnjs.com", "cdnjs.cloudflare.com", "unpkg.com"}) {
    ASSERT_NE(egress(c, host), nullptr) << host;
    EXPECT_EQ(egress(c, host)->evidence.front().file, "src/Web/libman.json") << host;
  }
  EXPECT_EQ(egress(c, "cdn.jsdelivr.net"), nullptr);
  EXPECT_EQ(build_of(c, "nuget", "Aspire.Hosting.SqlServer"), "none");
  EXPECT_EQ(origin_of(c, "mcr.microsoft.com"), "install-time");
  // Keycloak's image is on quay.io, whose CDN serves the layers.
  EXPECT_EQ(build_of(c, "nuget", "Aspire.Hosting.Keycloak"), "none");
  for (const char* host : {"quay.io", "cdn01.quay.io"}) {
    ASSERT_NE(egress(c, host), nullptr) << host;
    EXPECT_TRUE(egress(c, host)->reason.starts_with("nuget:Aspire.Hosting.Keycloak ")) << host;
  }
  const RuntimeFloor* yarn = floors(c, "yarn");
  ASSERT_NE(yarn, nullptr);
  EXPECT_EQ(yarn->provision, "=1.22.22");
  EXPECT_EQ(yarn->constraints.front().source.field, "RUN line 2");
  ASSERT_NE(floors(c, "pnpm"), nullptr);  // pnpm@latest: the tool, without a version
  EXPECT_TRUE(floors(c, "pnpm")->floor.empty());
  EXPECT_TRUE(floors(c, "pnpm")->tested.empty());
  EXPECT_TRUE(required_by(c.build_libs, "mariadb-client", "ci:.github/workflows/ci.yml"));
  EXPECT_EQ(lib(c.run_libs, "default-mysql-client"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "default-mysql-client"), nullptr);
  EXPECT_TRUE(noted(c, "docker/Dockerfile", "built from its own directory"));
  EXPECT_EQ(lib(c.build_libs, "gcc"), nullptr);
  ASSERT_NE(lib(c.run_libs, "gcc"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "gcc")->purpose, Purpose::kRun);
  EXPECT_EQ(lib(c.run_libs, "xvfb")->purpose, Purpose::kRun);
  // loadtest/ copies its own package*.json: a project of its own, whose image's
  // compiler builds it (a build need), though every file is beside it.
  EXPECT_TRUE(required_by(c.build_libs, "g++", "dockerfile:loadtest/Dockerfile"));
  EXPECT_FALSE(noted(c, "loadtest/Dockerfile", "built from its own directory"));
  EXPECT_TRUE(c.warnings.empty());
}

// A test job's `npm install -g azurite` in a tree whose only Node project is
// yarn's (its .npmrc names no registry) reaches npm's default registry, which
// no scanner has decided; and
// NBitcoin's test framework downloads Bitcoin Core.
TEST(DotnetFixtures, AGlobalNpmInstallBesideAYarnSiteAndBitcoinCoreDownloads) {
  Contract c = scan_fixture("yarn-site-npm-global");
  ASSERT_NE(egress(c, "registry.npmjs.org"), nullptr);
  EXPECT_EQ(egress(c, "registry.npmjs.org")->evidence.front().file, ".github/workflows/ci.yml");
  ASSERT_NE(egress(c, "bitcoincore.org"), nullptr);
  EXPECT_TRUE(egress(c, "bitcoincore.org")->reason.starts_with("nuget:NBitcoin.TestFramework "));
  EXPECT_TRUE(c.warnings.empty());
}

// Programs an Elixir application runs with System.cmd / find_executable.
TEST(ElixirFixtures, ProgramsTheApplicationRuns) {
  Contract c = scan_fixture("elixir-exec-programs");
  EXPECT_TRUE(required_by(c.run_libs, "imagemagick", "exec:mogrify"));
  EXPECT_TRUE(required_by(c.run_libs, "ffmpeg", "exec:ffprobe"));
  EXPECT_EQ(lib(c.run_libs, "imagemagick")->evidence.front().file, "lib/media/thumbnail.ex");
  // A nested third_party/ without a license of its own is the application's
  // code (its `System.cmd(\n "sox"` counts); a vendored tree with its license is not.
  EXPECT_TRUE(required_by(c.run_libs, "sox", "exec:sox"));
  EXPECT_EQ(lib(c.run_libs, "pandoc"), nullptr);
  // `elixir: @elixir_requirement` reads the module attribute.
  ASSERT_NE(floors(c, "elixir"), nullptr);
  EXPECT_EQ(floors(c, "elixir")->floor, "1.16.0");
  EXPECT_EQ(floors(c, "elixir")->constraints[0].source.value, "@elixir_requirement = ~> 1.16");
  // `config :bun, version:` pins the bun the hex package downloads from bun's GitHub releases.
  ASSERT_NE(floors(c, "bun"), nullptr);
  EXPECT_EQ(floors(c, "bun")->pin, "=1.3.10");
  EXPECT_EQ(floors(c, "bun")->constraints[0].source.field, "line 5 config :bun version");
  EXPECT_EQ(build_of(c, "hex", "bun"), "download");
  EXPECT_EQ(origin_of(c, "release-assets.githubusercontent.com"), "install-time");
}

// Containers a test job starts: the compose services it pulls (and the image a
// service it builds starts from) — here through a script that `cd ..`s to the
// compose file — and what `docker run` starts. Their registries
// are hosts the job reaches; a lint job's, a registry on localhost and an image
// named by a variable are not.
TEST(ElixirFixtures, ContainersTheTestJobStarts) {
  Contract c = scan_fixture("elixir-ci-containers");
  const EgressHost* hub = egress(c, "registry-1.docker.io");
  ASSERT_NE(hub, nullptr);
  EXPECT_EQ(origin_of(c, "registry-1.docker.io"), "install-time");
  EXPECT_EQ(hub->evidence.front().file, "compose.yaml");
  EXPECT_EQ(hub->evidence.front().field, "services.db.image");
  EXPECT_NE(hub->reason.find("docker compose"), std::string::npos);
  for (const char* h : {"auth.docker.io", "production.cloudflare.docker.com", "docker.elastic.co", "quay.io", "ghcr.io"})
    EXPECT_NE(egress(c, h), nullptr) << h;
  EXPECT_EQ(egress(c, "quay.io")->evidence.front().file, "ci/Dockerfile");
  EXPECT_EQ(egress(c, "quay.io")->evidence.front().field, "line 1 FROM");
  EXPECT_EQ(egress(c, "ghcr.io")->evidence.front().file, ".github/workflows/ci.yml");
  // `cd e2e && docker compose up`: the compose file of that directory.
  ASSERT_NE(egress(c, "public.ecr.aws"), nullptr);
  EXPECT_EQ(egress(c, "public.ecr.aws")->evidence.front().file, "e2e/docker-compose.yml");
  EXPECT_EQ(egress(c, "registry.gitlab.com"), nullptr);  // the lint job's
  EXPECT_EQ(egress(c, "localhost:5000"), nullptr);
  EXPECT_EQ(egress(c, "localhost"), nullptr);
  EXPECT_TRUE(c.warnings.empty());
}

TEST(DotnetFixtures, MalformedProjectsPolicyAndFeeds) {
  Contract c = scan_fixture("dotnet-malformed");
  EXPECT_TRUE(warned(c, "global.json", "not a rollForward policy: \"newest\""));
  EXPECT_TRUE(warned(c, "src/App/App.csproj", "malformed XML at line 5"));
  EXPECT_TRUE(warned(c, "src/App/Legacy.csproj", "\"banana\" is not a target framework moniker"));
  EXPECT_TRUE(noted(c, "src/App/Legacy.csproj", "net48 is .NET Framework"));
  EXPECT_TRUE(noted(c, "src/App/Legacy.csproj", "$(LibTargets)"));
  EXPECT_TRUE(warned(c, "nuget.config", "names no host"));
  EXPECT_EQ(origin_of(c, "api.nuget.org"), "default");
  ASSERT_NE(floors(c, "dotnet"), nullptr);
  EXPECT_TRUE(floors(c, "dotnet")->floor.empty());
}

}  // namespace
}  // namespace strata::contract::testing
