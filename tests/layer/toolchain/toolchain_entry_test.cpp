// Toolchains as configs name them and bundles carry them, without the
// network: a config entry read (and refused), a line's want, the release
// record read back (and refused when it could name a path outside the
// cache), the bundle index's toolchain entries in their order, and a
// pre-warm config with toolchains only.
#include "layer/toolchain/toolchain_entry.hpp"

#include <gtest/gtest.h>

#include "layer/bundle/bundle_format.hpp"
#include "layer/cache/prewarm_config.hpp"
#include "layer/toolchain/toolchain_layer.hpp"
#include "oci/yaml_load.hpp"
#include "support/temp_dir.hpp"

namespace strata::layer::toolchain {
namespace {

Result<std::vector<ToolchainEntry>> entries(const std::string& yaml) {
  auto root = oci::load_yaml(yaml, "t.yaml");
  EXPECT_TRUE(root);
  return parse_toolchain_entries((*root)["toolchains"], "t.yaml", "/etc/strata");
}

std::string error_of(const std::string& yaml) {
  auto e = entries(yaml);
  return e ? "" : e.error().message();
}

Release sample_release() {
  Release r;
  r.tool = "node";
  r.version = "20.18.0";
  r.arch = "amd64";
  r.source = *parse_source("node", "https://mirror.example/node");
  r.archives.push_back({"runtime", "https://mirror.example/node/v20.18.0/node-v20.18.0-linux-x64.tar.xz",
                        "node-v20.18.0-linux-x64.tar.xz", "sha256", std::string(64, 'a'), 10,
                        "SHASUMS256.txt.asc signed by ABC", "", ""});
  return r;
}

TEST(ToolchainEntry, ReadsEveryFieldAndRefusesWhatItDoesNotKnow) {
  auto e = entries(
      "toolchains:\n  - {tool: node, version: \"20.18.0\", source: npm, keyring: keys/k.asc, platforms: [linux/arm64]}\n"
      "  - {tool: go, version: \"1.22\"}\n");
  ASSERT_TRUE(e) << e.error().message();
  ASSERT_EQ(e->size(), 2u);
  EXPECT_EQ((*e)[0].where, "t.yaml: toolchains[0]");
  EXPECT_EQ((*e)[0].keyring, "/etc/strata/keys/k.asc");
  EXPECT_EQ((*e)[0].platforms, std::vector<std::string>{"linux/arm64"});
  EXPECT_EQ((*e)[1].source, "");
  EXPECT_NE(error_of("toolchains:\n  - {tool: node, version: \"20\", mirror: x}\n").find("unknown key `mirror`"),
            std::string::npos);
  EXPECT_NE(error_of("toolchains:\n  - {tool: elixir, version: \"1.17\"}\n").find("has no toolchain"), std::string::npos);
  EXPECT_NE(error_of("toolchains:\n  - {tool: node}\n").find("`version` is required"), std::string::npos);
  EXPECT_NE(error_of("toolchains:\n  - {tool: go, version: \"1\", source: npm}\n").find("carries node only"),
            std::string::npos);
  EXPECT_NE(error_of("toolchains:\n  - {tool: go, version: \"1\", platforms: [\"x/\"]}\n").find("platforms[0]"),
            std::string::npos);
  EXPECT_NE(error_of("toolchains: {tool: go}\n").find("must be a list"), std::string::npos);
}

TEST(ToolchainEntry, ALineAdmitsItsOwnReleasesOnly) {
  auto pinned = line_want("20.18.0");
  ASSERT_TRUE(pinned);
  EXPECT_EQ(pinned->exact, "20.18.0");
  auto line = line_want("3.12");
  ASSERT_TRUE(line);
  EXPECT_FALSE(line->exact);
  EXPECT_TRUE(line->admits("3.12.7"));
  EXPECT_FALSE(line->admits("3.120.1"));
  EXPECT_FALSE(line->admits("3.13.0"));
  EXPECT_FALSE(line->admits("3.12"));
  EXPECT_FALSE(line_want(">=20 <21"));
}

TEST(ToolchainEntry, AReleaseRecordReadsBackAndANameOutsideTheCacheIsRefused) {
  Release r = sample_release();
  auto back = parse_release_record(release_record(r), "record");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->source.describe(), "https://mirror.example/node");
  EXPECT_EQ(back->archives[0].hex, r.archives[0].hex);
  EXPECT_EQ(archive_cache_path("/h", back->archives[0]), "/h/toolchains/archives/sha256/" + std::string(64, 'a'));

  r.archives[0].hex = "../../../../../../../../../../../../../../../../../../../../etc/x";
  r.archives[0].hex.resize(64, 'a');
  EXPECT_FALSE(parse_release_record(release_record(r), "record"));
  r = sample_release();
  r.archives[0].name = "../x";
  EXPECT_FALSE(parse_release_record(release_record(r), "record"));
  EXPECT_FALSE(parse_release_record("{\"tool\":\"node\"}", "record"));
  EXPECT_FALSE(parse_release_record("not json", "record"));

  testing::TempDir home;
  ASSERT_TRUE(remember_release(home.path(), sample_release()));
  ASSERT_TRUE(remember_release(home.path(), sample_release())) << "a second time keeps the first";
}

TEST(ToolchainEntry, TheBundleIndexListsToolchainsLastInOneOrder) {
  Release a = sample_release();
  Release b = sample_release();
  b.version = "20.17.0";
  auto record = oci::descriptor_for(kToolchainRecordMediaType, "{}");
  auto archive = oci::descriptor_for(kToolchainArchiveMediaType, "bytes");
  BundleContents c;
  for (const Release* r : {&a, &b})
    c.toolchains.push_back(
        {r->tool, r->version, r->arch, r->source.describe(), toolchain_artifact(*r, record, {archive}).descriptor});
  auto index = bundle_index(c);
  BundleContents swapped = c;
  std::swap(swapped.toolchains[0], swapped.toolchains[1]);
  EXPECT_EQ(bundle_index(swapped).bytes, index.bytes);
  auto back = parse_bundle_index(index.bytes, "bundle");
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->toolchains.size(), 2u);
  EXPECT_EQ(back->toolchains[0].version, "20.17.0");
  EXPECT_EQ(back->toolchains[1].source, "https://mirror.example/node");

  std::string twice = index.bytes;
  auto at = twice.find("20.17.0");
  twice.replace(at, 7, "20.18.0");
  auto dup = parse_bundle_index(twice, "bundle");
  ASSERT_FALSE(dup);
  EXPECT_NE(dup.error().message().find("listed twice"), std::string::npos);
  std::string elixir = index.bytes;  // a tool with no toolchain kind
  elixir.replace(elixir.find("\"node\""), 6, "\"elixir\"");
  EXPECT_FALSE(parse_bundle_index(elixir, "bundle"));
}

TEST(ToolchainEntry, APrewarmConfigMayNameToolchainsOnly) {
  auto c = parse_prewarm_config("cache: oci:/c\ntoolchains:\n  - {tool: node, version: \"20\"}\n", "p.yaml", "/etc");
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->toolchains.size(), 1u);
  EXPECT_TRUE(c->overlays.empty());
  auto none = parse_prewarm_config("cache: oci:/c\n", "p.yaml", "/etc");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("`toolchains`"), std::string::npos);
}

}  // namespace
}  // namespace strata::layer::toolchain
