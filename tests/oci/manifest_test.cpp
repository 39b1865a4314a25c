#include "oci/manifest.hpp"

#include <gtest/gtest.h>

#include "oci/media_types.hpp"

namespace strata::oci {
namespace {

const std::string kLayer = "sha256:" + std::string(64, '1');
const std::string kCfg = "sha256:" + std::string(64, '2');

std::string manifest_json(std::string extra = "") {
  return R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":")" +
         kCfg + R"(","size":10},"layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":")" +
         kLayer + R"(","size":20}])" + extra + "}";
}

TEST(Manifest, ParsesAndRoundTripsBytes) {
  std::string j = manifest_json();
  auto p = parse_manifest(j, "", "test");
  ASSERT_TRUE(p) << p.error().message();
  auto& m = std::get<ImageManifest>(*p);
  EXPECT_EQ(m.layers.size(), 1u);
  EXPECT_EQ(m.config.digest.str(), kCfg);
  // serialize() writes the same canonical form (image-spec field order).
  EXPECT_EQ(serialize(m), j);
}

TEST(Manifest, AnnotationsThatAreNotUtf8AreReplacedNotThrown) {
  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.config = descriptor_for(media::kOciConfig, "{}");
  m.annotations["note"] = "postinst by J\xf6rg";
  m.annotations["plain"] = "caf\xc3\xa9";
  std::string text = serialize(m);
  EXPECT_NE(text.find("J\xef\xbf\xbdrg"), std::string::npos) << text;  // U+FFFD
  EXPECT_NE(text.find("caf\xc3\xa9"), std::string::npos) << "valid UTF-8 is kept as is";
  EXPECT_TRUE(parse_manifest(text, "", "m"));
}

TEST(Manifest, MissingMediaTypeIsInferred) {
  std::string j = R"({"schemaVersion":2,"manifests":[]})";
  auto p = parse_manifest(j, "", "t");
  ASSERT_TRUE(p);
  EXPECT_TRUE(std::holds_alternative<ImageIndex>(*p));
}

TEST(Manifest, RefusesSchema1WithClearMessage) {
  auto p = parse_manifest(R"({"schemaVersion":1,"fsLayers":[]})", std::string(media::kDockerSchema1Signed), "r");
  ASSERT_FALSE(p);
  EXPECT_TRUE(p.error().is(ErrorCode::kUnsupported));
  EXPECT_NE(p.error().message().find("schema 1"), std::string::npos);
  auto sniffed = parse_manifest(R"({"schemaVersion":1,"fsLayers":[]})", "", "r");
  ASSERT_FALSE(sniffed);
  EXPECT_TRUE(sniffed.error().is(ErrorCode::kUnsupported));
}

TEST(Manifest, RejectsHostileDocuments) {
  std::string big = manifest_json(R"(,"annotations":{"a":")" + std::string(kMaxManifestBytes, 'x') + R"("})");
  auto p = parse_manifest(big, "", "big");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("over the limit"), std::string::npos);
  EXPECT_FALSE(parse_manifest("{not json", "", "x"));
  EXPECT_FALSE(parse_manifest("[]", "", "x"));
  EXPECT_FALSE(parse_manifest(R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json"})", "", "x"));
  // A negative size and a malformed digest are refused.
  std::string neg = manifest_json();
  neg.replace(neg.find("\"size\":20"), 9, "\"size\":-1");
  EXPECT_FALSE(parse_manifest(neg, "", "x"));
  std::string badd = manifest_json();
  badd.replace(badd.find(kLayer), kLayer.size(), "sha256:XYZ");
  auto r = parse_manifest(badd, "", "m");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("layers[0]"), std::string::npos);
  // The served type must agree with the document's own mediaType.
  EXPECT_FALSE(parse_manifest(manifest_json(), std::string(media::kOciIndex), "x"));
}

// Found by fuzzing: a config whose fields have the wrong JSON types made
// platform() throw; they read as absent instead.
TEST(Manifest, ConfigFieldsOfTheWrongTypeReadAsAbsent) {
  auto cfg = parse_config(R"({"architecture":{"a":1},"os":{},"variant":[1],"rootfs":{"type":"layers","diff_ids":[1,"x"]},"config":{"Env":"PATH","Labels":[]}})", "cfg");
  ASSERT_TRUE(cfg);
  EXPECT_EQ(cfg->platform().os, "");
  EXPECT_EQ(cfg->platform().architecture, "");
  EXPECT_EQ(cfg->diff_ids(), std::vector<std::string>{"x"});
  EXPECT_TRUE(cfg->env().empty());
  EXPECT_TRUE(cfg->labels().empty());
}

TEST(Manifest, PlatformSelection) {
  ImageIndex idx;
  idx.media_type = std::string(media::kOciIndex);
  Descriptor a = descriptor_for(media::kOciManifest, "a");
  a.platform = Platform{"linux", "amd64", "", ""};
  Descriptor b = descriptor_for(media::kOciManifest, "b");
  b.platform = Platform{"linux", "arm64", "v8", ""};
  idx.manifests = {a, b};
  EXPECT_EQ(select_platform(idx, *parse_platform("linux/arm64")).at(0).digest, b.digest);
  EXPECT_EQ(select_platform(idx, *parse_platform("linux/aarch64")).at(0).digest, b.digest);
  EXPECT_EQ(select_platform(idx, *parse_platform("linux/x86_64")).at(0).digest, a.digest);
  EXPECT_TRUE(select_platform(idx, *parse_platform("linux/s390x")).empty());
  auto round = parse_manifest(serialize(idx), "", "idx");
  ASSERT_TRUE(round);
  EXPECT_EQ(std::get<ImageIndex>(*round).manifests[1].platform->variant, "v8");
}

}  // namespace
}  // namespace strata::oci
