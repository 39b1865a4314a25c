// Where images record runtime versions: Debian packages, the ENV official
// images set, and version files of runtimes unpacked outside dpkg.
#include "contract/image/runtime_markers.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace strata::contract::image
