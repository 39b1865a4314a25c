// Where images record runtime versions: Debian packages, the ENV official
// images set, and version files of runtimes unpacked outside dpkg.
#include "contract/image/runtime_markers.hpp"

#include <gtest/gtest.h>

#include "contract/image/facts_cache.hpp"
#include "contract/image/image_facts.hpp"
#include "support/image_layers.hpp"
#include "support/random_image.hpp"

namespace strata::contract::image {
namespace {

TEST(RuntimeMarkers, DebianVersionsLoseEpochRevisionAndSuffixes) {
  EXPECT_EQ(upstream_version("18.19.0+dfsg-6~deb12u2"), "18.19.0");
  EXPECT_EQ(upstream_version("2:1.19~1"), "1.19");
  EXPECT_EQ(upstream_version("3.11.2-1+b1"), "3.11.2");
  EXPECT_EQ(upstream_version("1.63.0+dfsg1-2"), "1.63.0");
}

TEST(RuntimeMarkers, PackagesThatCarryARuntime) {
  EXPECT_EQ(runtime_of_package("nodejs"), "node");
  EXPECT_EQ(runtime_of_package("python3"), "python");
  EXPECT_EQ(runtime_of_package("python3.11"), "python");
  EXPECT_EQ(runtime_of_package("python3.11-dev"), std::nullopt);
  EXPECT_EQ(runtime_of_package("golang-1.19-go"), "go");
  EXPECT_EQ(runtime_of_package("openjdk-17-jdk-headless"), "java");
  EXPECT_EQ(runtime_of_package("libpq-dev"), std::nullopt);
  EXPECT_EQ(runtime_of_package("ruby3.1"), "ruby");
  EXPECT_EQ(runtime_of_package("ruby3.1-dev"), std::nullopt);  // headers, not the interpreter
  EXPECT_EQ(runtime_of_package("php8.2-cli"), "php");
  EXPECT_EQ(runtime_of_package("php-cli"), "php");
  EXPECT_EQ(runtime_of_package("php8.2-mbstring"), std::nullopt);  // an extension
  EXPECT_EQ(runtime_of_package("composer"), "composer");
}

TEST(RuntimeMarkers, EnvOfOfficialImages) {
  auto node = runtime_of_env("NODE_VERSION=22.11.0");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->tool, "node");
  EXPECT_EQ(node->version, "22.11.0");
  EXPECT_EQ(node->source, "ENV NODE_VERSION=22.11.0");
  EXPECT_EQ(runtime_of_env("JAVA_VERSION=jdk-17.0.9+9")->version, "17.0.9");
  EXPECT_EQ(runtime_of_env("GOLANG_VERSION=1.22.5")->tool, "go");
  EXPECT_EQ(runtime_of_env("NODE_VERSION=latest"), std::nullopt);
  EXPECT_EQ(runtime_of_env("HOME=/root"), std::nullopt);
  EXPECT_EQ(runtime_of_env("ELIXIR_VERSION=v1.15.7")->version, "1.15.7");
  EXPECT_EQ(runtime_of_env("OTP_VERSION=26.1.2")->tool, "erlang");
  EXPECT_EQ(runtime_of_env("DOTNET_SDK_VERSION=8.0.100")->tool, "dotnet");
  EXPECT_EQ(runtime_of_env("DOTNET_VERSION=8.0.0"), std::nullopt);  // the runtime, not an SDK
}

TEST(RuntimeMarkers, VersionFiles) {
  EXPECT_TRUE(is_version_file("usr/local/include/node/node_version.h"));
  EXPECT_TRUE(is_version_file("usr/local/include/python3.12/patchlevel.h"));
  EXPECT_FALSE(is_version_file("usr/local/include/pythonX/patchlevel.h"));
  EXPECT_FALSE(is_version_file("usr/local/include/python3.12/other.h"));
  auto node = runtime_of_file("usr/local/include/node/node_version.h",
                              "#define NODE_MAJOR_VERSION 22\n#define NODE_MINOR_VERSION 11\n#define NODE_PATCH_VERSION 0\n");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->version, "22.11.0");
  EXPECT_EQ(node->source, "file /usr/local/include/node/node_version.h");
  EXPECT_EQ(runtime_of_file("usr/local/include/python3.12/patchlevel.h", "#define PY_VERSION              \"3.12.4\"\n")
                ->version,
            "3.12.4");
  EXPECT_EQ(runtime_of_file("usr/local/go/VERSION", "go1.22.5\ntime 2024-06-27T20:11:12Z\n")->version, "1.22.5");
  EXPECT_EQ(runtime_of_file("opt/java/openjdk/release", "IMPLEMENTOR=\"Eclipse\"\nJAVA_VERSION=\"21.0.4\"\n")->version,
            "21.0.4");
  EXPECT_EQ(runtime_of_rustup_toolchain("1.79.0-x86_64-unknown-linux-gnu")->version, "1.79.0");
  EXPECT_EQ(runtime_of_rustup_toolchain("stable-x86_64-unknown-linux-gnu"), std::nullopt);
}

constexpr std::string_view kJdkRelease = "opt/java/openjdk/release";

// The review's image: std::regex recursed once per character of the
// unterminated value and crashed preflight, plan and provision. Generated
// here (a corpus file stays small).
TEST(RuntimeMarkers, AnUnterminatedJavaVersionOver60KBGivesNoVersionAndANote) {
  const std::string release = "IMPLEMENTOR=\"Eclipse\"\nJAVA_VERSION=\"" + std::string(60 * 1024, '7') + "\n";
  ASSERT_LE(release.size(), kMaxVersionFileBytes) << "the parser itself must see it, not the size bound";
  EXPECT_EQ(runtime_of_file(kJdkRelease, release), std::nullopt);
  auto reading = read_version_file(kJdkRelease, release);
  EXPECT_FALSE(reading.fact);
  EXPECT_NE(reading.note.find("/opt/java/openjdk/release: JAVA_VERSION"), std::string::npos) << reading.note;
  EXPECT_NE(reading.note.find("no version read from it"), std::string::npos) << reading.note;
}

TEST(RuntimeMarkers, MalformedVersionFilesGiveNoVersionAndSayWhy) {
  struct Case {
    std::string_view path;
    std::string content;
    std::string_view why;
  };
  const std::string long_value(kMaxVersionValueBytes + 1, '1');
  const std::vector<Case> cases = {
      {kJdkRelease, "JAVA_VERSION=\"21.0.4\nIMPLEMENTOR=\"Eclipse\"\n", "is not terminated on its line"},
      {kJdkRelease, "JAVA_VERSION=\"" + long_value + "\"\n", "longer than 128 characters"},
      {kJdkRelease, "JAVA_VERSION=21.0.4\n", "not a quoted value"},
      {kJdkRelease, "IMPLEMENTOR=\"Eclipse\"\n", "no JAVA_VERSION"},
      {kJdkRelease, "JAVA_VERSION=\"latest\"\n", "no java version"},
      {"usr/local/include/python3.12/patchlevel.h", "#define PY_VERSION \"" + std::string(60 * 1024, '3'),
       "PY_VERSION is longer than 128 characters"},
      {"usr/local/include/python3.12/patchlevel.h", "#define PY_VERSION \"rc\"\n", "PY_VERSION is not a version"},
      {"usr/local/include/node/node_version.h", "#define NODE_MAJOR_VERSION 22\n#define NODE_MINOR_VERSION 11\n",
       "no #define NODE_PATCH_VERSION line"},
      {"usr/local/go/VERSION", std::string(100, ' ') + std::string(60 * 1024, '1'), "longer than 128 characters"},
      {"usr/local/go/VERSION", "devel +abc\n", "no go version"},
      {kJdkRelease, std::string(kMaxVersionFileBytes + 1, '\n'), "more than the 64.0 KiB a version file may have"},
  };
  for (const auto& c : cases) {
    auto reading = read_version_file(c.path, c.content);
    EXPECT_FALSE(reading.fact) << c.path << ": " << c.why;
    EXPECT_NE(reading.note.find("/" + std::string(c.path) + ": "), std::string::npos) << reading.note;
    EXPECT_NE(reading.note.find(c.why), std::string::npos) << reading.note;
  }
}

TEST(RuntimeMarkers, VersionFilesAreReadLineByLine) {
  EXPECT_EQ(runtime_of_file(kJdkRelease, "JAVA_RUNTIME_VERSION=\"17.0.9+9\"\n  JAVA_VERSION=\"17.0.9\"\n")->version,
            "17.0.9");
  auto node = runtime_of_file("usr/include/node/node_version.h",
                              "#ifndef SRC_NODE_VERSION_H_\n#define NODE_MAJOR_VERSION_X 9\n"
                              "# define NODE_MAJOR_VERSION 1\n"  // not "#define": not read
                              "#define\tNODE_MAJOR_VERSION\t18\n#define NODE_MINOR_VERSION 19\n"
                              "#define NODE_PATCH_VERSION 0\n#define NODE_VERSION_IS_RELEASE 1\n");
  ASSERT_TRUE(node);
  EXPECT_EQ(node->version, "18.19.0");
  EXPECT_EQ(runtime_of_file("usr/include/python3.11/patchlevel.h",
                            "#define PY_MAJOR_VERSION 3\n#define PY_VERSION \"3.11.2+\"\n")
                ->version,
            "3.11.2");
}

// Through read_image_facts, as preflight, plan and provision read a base:
// the malformed and the oversize version files give notes, the good one
// its version, and nothing crashes.
class ImageFactsTest : public strata::testing::layers::ImageFsTest {
 protected:
  // One gzip layer of `entries` as the image `tag` of the store.
  void put_image(const std::vector<strata::testing::layers::E>& entries, const std::string& tag) {
    oci::StringSink gz;
    auto sink = oci::CompressingSink::create(oci::Compression::kGzip, gz);
    ASSERT_TRUE(sink);
    ASSERT_TRUE((*sink)->write(oci::as_bytes(strata::testing::layers::raw_tar(entries))));
    ASSERT_TRUE((*sink)->finish());
    auto img = strata::testing::make_image_of(store_, {gz.str()});
    ASSERT_TRUE(store_.put_manifest(img.manifest, tag));
  }
};

TEST_F(ImageFactsTest, MalformedAndOversizeVersionFilesGiveNotesNotCrashes) {
  using strata::testing::layers::dir;
  using strata::testing::layers::file;
  const std::string release = "JAVA_VERSION=\"" + std::string(60 * 1024, '7') + "\n";
  const std::string node_h = "#define NODE_MAJOR_VERSION 22\n" + std::string(kMaxVersionFileBytes, '/');
  std::vector<strata::testing::layers::E> entries = {
      dir("opt"), dir("opt/java"), dir("opt/java/openjdk"), file("opt/java/openjdk/release", release),
      dir("usr"), dir("usr/local"), dir("usr/local/go"), file("usr/local/go/VERSION", "go1.22.5\n"),
      dir("usr/local/include"), dir("usr/local/include/node"), file("usr/local/include/node/node_version.h", node_h)};
  put_image(entries, "base");
  if (HasFatalFailure()) return;

  auto facts = read_image_facts(store_, "base", oci::Platform{"linux", "amd64", "", ""});
  ASSERT_TRUE(facts) << facts.error().message();
  ASSERT_EQ(facts->runtimes.size(), 1u);
  EXPECT_EQ(facts->runtimes[0].tool, "go");
  EXPECT_EQ(facts->runtimes[0].version, "1.22.5");
  ASSERT_EQ(facts->notes.size(), 2u);
  EXPECT_NE(facts->notes[0].find("/opt/java/openjdk/release: JAVA_VERSION"), std::string::npos) << facts->notes[0];
  EXPECT_NE(facts->notes[1].find("/usr/local/include/node/node_version.h: " + std::to_string(node_h.size()) + " bytes"),
            std::string::npos)
      << facts->notes[1];

  // The notes travel with the facts (the cache entry, preflight --json).
  auto again = facts_from_json(facts_to_json(*facts), "entry.json");
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(*again, *facts);
}


// The dpkg database's Provides: an installed git provides git-core, and the
// facts cache keeps it.
TEST_F(ImageFactsTest, InstalledPackagesProvideTheirVirtualNames) {
  using strata::testing::layers::dir;
  using strata::testing::layers::file;
  const std::string status =
      "Package: git\nStatus: install ok installed\nVersion: 1:2.39.5-0+deb12u1\nArchitecture: amd64\n"
      "Provides: git-completion, git-core\n\n"
      "Package: gcc\nStatus: install ok installed\nVersion: 4:12.2.0-3\nArchitecture: amd64\n"
      "Provides: c-compiler\n\n"
      "Package: tcc\nStatus: deinstall ok config-files\nVersion: 0.9.27\nArchitecture: amd64\n"
      "Provides: c-compiler\n";
  std::vector<strata::testing::layers::E> entries = {dir("var"), dir("var/lib"), dir("var/lib/dpkg"),
                                                     file("var/lib/dpkg/status", status)};
  put_image(entries, "prov");
  if (HasFatalFailure()) return;
  auto facts = read_image_facts(store_, "prov", oci::Platform{"linux", "amd64", "", ""});
  ASSERT_TRUE(facts) << facts.error().message();
  ASSERT_NE(facts->installed_satisfier("git-core"), nullptr);
  EXPECT_EQ(*facts->installed_satisfier("git-core"), "git");
  EXPECT_EQ(*facts->installed_satisfier("git"), "git");
  ASSERT_NE(facts->installed_satisfier("c-compiler"), nullptr);
  EXPECT_EQ(*facts->installed_satisfier("c-compiler"), "gcc") << "tcc is not installed";
  EXPECT_EQ(facts->installed_satisfier("svn"), nullptr);
  auto again = facts_from_json(facts_to_json(*facts), "entry.json");
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_EQ(*again, *facts);
}

// What strata's toolchain layer installs: /opt/strata/toolchains/<tool>/<version>/.
TEST(RuntimeMarkers, VersionFilesOfStrataToolchains) {
  const std::string node_h = "#define NODE_MAJOR_VERSION 20\n#define NODE_MINOR_VERSION 18\n#define NODE_PATCH_VERSION 0\n";
  EXPECT_TRUE(is_version_file("opt/strata/toolchains/node/20.18.0/include/node/node_version.h"));
  EXPECT_TRUE(is_version_file("opt/strata/toolchains/go/1.22.5/VERSION"));
  EXPECT_TRUE(is_version_file("opt/strata/toolchains/python/3.10.15/include/python3.10/patchlevel.h"));
  EXPECT_FALSE(is_version_file("opt/strata/toolchains/node/20.18.0/VERSION")) << "another tool's file";
  EXPECT_FALSE(is_version_file("opt/strata/toolchains/go/VERSION"));
  EXPECT_FALSE(is_version_file("opt/strata/toolchains/python/3.10.15/include/pythonX/patchlevel.h"));

  auto node = read_version_file("opt/strata/toolchains/node/20.18.0/include/node/node_version.h", node_h);
  ASSERT_TRUE(node.fact);
  EXPECT_EQ(node.fact->tool, "node");
  EXPECT_EQ(node.fact->version, "20.18.0");
  EXPECT_EQ(node.fact->source, "file /opt/strata/toolchains/node/20.18.0/include/node/node_version.h");
  EXPECT_EQ(node.note, "");
  auto go = read_version_file("opt/strata/toolchains/go/1.22.5/VERSION", "go1.22.5\ntime 2024-06-27T20:11:12Z\n");
  ASSERT_TRUE(go.fact);
  EXPECT_EQ(go.fact->tool, "go");
  EXPECT_EQ(go.fact->version, "1.22.5");
  auto py = read_version_file("opt/strata/toolchains/python/3.10.15/include/python3.10/patchlevel.h",
                              "#define PY_VERSION \"3.10.15\"\n");
  ASSERT_TRUE(py.fact);
  EXPECT_EQ(py.fact->version, "3.10.15");

  auto rust = runtime_of_toolchain_entry("opt/strata/toolchains/rust/1.79.0/bin/rustc");
  ASSERT_TRUE(rust);
  EXPECT_EQ(rust->version, "1.79.0");
  EXPECT_EQ(rust->source, "file /opt/strata/toolchains/rust/1.79.0/bin/rustc");
  EXPECT_EQ(runtime_of_toolchain_entry("opt/strata/toolchains/rust/stable/bin/rustc"), std::nullopt);
  EXPECT_EQ(runtime_of_toolchain_entry("opt/strata/toolchains/rust/1.79.0/bin/cargo"), std::nullopt);
  EXPECT_EQ(runtime_of_toolchain_entry("opt/strata/toolchains/node/20.18.0/bin/node"), std::nullopt);
}

// Temurin's JDK by its release file, the .NET SDK by its host at the root.
TEST(RuntimeMarkers, JavaAndDotnetOfStrataToolchains) {
  EXPECT_TRUE(is_version_file("opt/strata/toolchains/java/21.0.5/release"));
  EXPECT_FALSE(is_version_file("opt/strata/toolchains/node/20.18.0/release")) << "another tool's file";
  auto java = read_version_file("opt/strata/toolchains/java/21.0.5/release",
                                "IMPLEMENTOR=\"Eclipse Adoptium\"\nJAVA_VERSION=\"21.0.5\"\n");
  ASSERT_TRUE(java.fact) << java.note;
  EXPECT_EQ(java.fact->tool, "java");
  EXPECT_EQ(java.fact->version, "21.0.5");
  EXPECT_EQ(java.note, "");
  auto other = read_version_file("opt/strata/toolchains/java/21.0.5/release", "JAVA_VERSION=\"21.0.6\"\n");
  ASSERT_TRUE(other.fact);
  EXPECT_EQ(other.fact->version, "21.0.6");
  EXPECT_NE(other.note.find("says java 21.0.6, not 21.0.5"), std::string::npos) << other.note;

  auto dotnet = runtime_of_toolchain_entry("opt/strata/toolchains/dotnet/8.0.404/dotnet");
  ASSERT_TRUE(dotnet);
  EXPECT_EQ(dotnet->tool, "dotnet");
  EXPECT_EQ(dotnet->version, "8.0.404");
  EXPECT_EQ(dotnet->source, "file /opt/strata/toolchains/dotnet/8.0.404/dotnet");
  EXPECT_EQ(runtime_of_toolchain_entry("opt/strata/toolchains/dotnet/8.0.404/sdk/dotnet"), std::nullopt);
  EXPECT_EQ(runtime_of_toolchain_entry("opt/strata/toolchains/dotnet/latest/dotnet"), std::nullopt);
}

TEST(RuntimeMarkers, AToolchainFileThatSaysAnotherVersionIsTrustedAndNoted) {
  auto node = read_version_file("opt/strata/toolchains/node/20.18.0/include/node/node_version.h",
                                "#define NODE_MAJOR_VERSION 20\n#define NODE_MINOR_VERSION 18\n#define NODE_PATCH_VERSION 1\n");
  ASSERT_TRUE(node.fact);
  EXPECT_EQ(node.fact->version, "20.18.1");
  EXPECT_EQ(node.note,
            "/opt/strata/toolchains/node/20.18.0: /opt/strata/toolchains/node/20.18.0/include/node/node_version.h says "
            "node 20.18.1, not 20.18.0; 20.18.1 is trusted");
  // The bounds hold under the toolchain directory too.
  auto big = read_version_file("opt/strata/toolchains/go/1.22.5/VERSION", "go" + std::string(200, '1') + "\n");
  EXPECT_FALSE(big.fact);
  EXPECT_NE(big.note.find("longer than 128 characters"), std::string::npos) << big.note;
}

// The toolchain layer as provision writes it: the runtime under
// /opt/strata/toolchains, absolute links in /usr/local/bin, PATH led by the
// toolchain's bin. The facts see its version and its commands.
TEST_F(ImageFactsTest, AToolchainLayerGivesItsRuntimeAndItsCommands) {
  using strata::testing::layers::dir;
  using strata::testing::layers::file;
  using strata::testing::layers::sym;
  const std::string prefix = "opt/strata/toolchains/node/20.18.0";
  auto exe = [](std::string p) {
    auto e = file(std::move(p), "#!/bin/sh\n");
    e.mode = 0755;
    return e;
  };
  std::vector<strata::testing::layers::E> entries = {
      dir("opt"), dir("opt/strata"), dir("opt/strata/toolchains"), dir("opt/strata/toolchains/node"), dir(prefix),
      dir(prefix + "/bin"), exe(prefix + "/bin/node"), sym(prefix + "/bin/npm", "../lib/node_modules/npm/bin/npm-cli.js"),
      dir(prefix + "/include"), dir(prefix + "/include/node"),
      file(prefix + "/include/node/node_version.h",
           "#define NODE_MAJOR_VERSION 20\n#define NODE_MINOR_VERSION 18\n#define NODE_PATCH_VERSION 0\n"),
      dir(prefix + "/lib"), dir(prefix + "/lib/node_modules"), dir(prefix + "/lib/node_modules/npm"),
      dir(prefix + "/lib/node_modules/npm/bin"), exe(prefix + "/lib/node_modules/npm/bin/npm-cli.js"),
      dir("opt/strata/toolchains/rust"), dir("opt/strata/toolchains/rust/1.79.0"),
      dir("opt/strata/toolchains/rust/1.79.0/bin"), exe("opt/strata/toolchains/rust/1.79.0/bin/rustc"),
      dir("usr"), dir("usr/local"), dir("usr/local/bin"), sym("usr/local/bin/node", "/" + prefix + "/bin/node"),
      sym("usr/local/bin/npm", "/" + prefix + "/bin/npm"),
      sym("usr/local/bin/rustc", "/opt/strata/toolchains/rust/1.79.0/bin/rustc")};
  put_image(entries, "tc");
  if (HasFatalFailure()) return;

  auto facts = read_image_facts(store_, "tc", oci::Platform{"linux", "amd64", "", ""});
  ASSERT_TRUE(facts) << facts.error().message();
  EXPECT_TRUE(facts->notes.empty()) << facts->notes.front();
  ASSERT_EQ(facts->runtime("node").size(), 1u);
  EXPECT_EQ(facts->runtime("node")[0]->version, "20.18.0");
  EXPECT_EQ(facts->runtime("node")[0]->source, "file /" + prefix + "/include/node/node_version.h");
  ASSERT_EQ(facts->runtime("rust").size(), 1u);
  EXPECT_EQ(facts->runtime("rust")[0]->version, "1.79.0");
  ASSERT_TRUE(facts->command("node"));
  EXPECT_EQ(*facts->command("node"), "/usr/local/bin/node");
  ASSERT_TRUE(facts->command("npm"));
  EXPECT_EQ(*facts->command("npm"), "/usr/local/bin/npm");
  ASSERT_TRUE(facts->command("rustc"));
}

}  // namespace
}  // namespace strata::contract::image
