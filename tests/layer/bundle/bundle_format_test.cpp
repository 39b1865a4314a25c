// The bundle index (docs/format/bundle.md): the names images get, the fixed
// order and bytes of the index, reading it back, and what a hostile or
// damaged index is refused for; where a load sends each image.
#include "layer/bundle/bundle_format.hpp"

#include <gtest/gtest.h>

#include "layer/bundle/bundle_load.hpp"
#include "oci/media_types.hpp"

namespace strata::layer {
namespace {

LockPackage package(const std::string& name, char hex) {
  return {name, "1.0-1", "amd64", "pool/main/" + name + "_1.0-1_amd64.deb", 100, std::string(64, hex), 0};
}

BundleContents sample() {
  BundleContents c;
  auto image = [](const std::string& name, unsigned seed) {
    BundleImage i;
    i.name = name;
    i.source = "docker://registry.a/" + name;
    i.root = oci::descriptor_for(oci::media::kOciManifest, "manifest " + std::to_string(seed));
    return i;
  };
  c.images = {image("registry.b/team/zz:1", 1), image("registry.b/team/app:v1", 2)};
  auto lock = oci::descriptor_for(kLockMediaType, "lock bytes");
  c.locks = {{"b.lock", "linux/arm64", lock_artifact("b.lock", "linux/arm64", lock).descriptor},
             {"a.lock", "linux/amd64", lock_artifact("a.lock", "linux/amd64", lock).descriptor}};
  for (auto [name, hex] : {std::pair{"zlib1g", 'c'}, {"greet", 'a'}, {"libgreet1", 'b'}}) {
    auto p = package(name, hex);
    c.debs.push_back({p.name, p.version, p.architecture, p.filename, p.sha256, 100, deb_artifact(p).descriptor});
  }
  return c;
}

TEST(BundleFormat, ImagesAreNamedByTheirRegistryReference) {
  EXPECT_EQ(*bundle_image_name("docker://registry.a/team/app:v1", "docker://registry.b/mirror/app:v1"),
            "registry.b/mirror/app:v1");
  // A layout or archive destination: the source's name.
  EXPECT_EQ(*bundle_image_name("docker://registry.a/team/app:v1", "oci:/srv/mirror:app"), "registry.a/team/app:v1");
  EXPECT_EQ(*bundle_image_name("debian", "oci:/srv/mirror:base"), "docker.io/library/debian:latest");
  auto pinned = bundle_image_name("docker://registry.a/team/app@sha256:" + std::string(64, 'e'), "oci:/x");
  EXPECT_EQ(*pinned, "registry.a/team/app@sha256:" + std::string(64, 'e'));
  auto neither = bundle_image_name("oci:/a:x", "oci-archive:/b.tar:y");
  ASSERT_FALSE(neither);
  EXPECT_NE(neither.error().message().find("docker:// source or destination"), std::string::npos);
}

TEST(BundleFormat, TheIndexHasOneOrderAndReadsBack) {
  auto c = sample();
  auto index = bundle_index(c);
  BundleContents shuffled = c;
  std::swap(shuffled.images[0], shuffled.images[1]);
  std::swap(shuffled.debs[0], shuffled.debs[2]);
  std::swap(shuffled.locks[0], shuffled.locks[1]);
  EXPECT_EQ(bundle_index(shuffled).bytes, index.bytes);

  auto back = parse_bundle_index(index.bytes, "bundle");
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->images.size(), 2u);
  EXPECT_EQ(back->images[0].name, "registry.b/team/app:v1");
  EXPECT_EQ(back->images[0].source, "docker://registry.a/registry.b/team/app:v1");
  EXPECT_EQ(back->images[0].root.digest, c.images[1].root.digest);
  ASSERT_EQ(back->locks.size(), 2u);
  EXPECT_EQ(back->locks[0].name, "a.lock");
  EXPECT_EQ(back->locks[0].platform, "linux/amd64");
  ASSERT_EQ(back->debs.size(), 3u);
  EXPECT_EQ(back->debs[0].package, "greet");
  EXPECT_EQ(back->debs[1].package, "libgreet1");
  EXPECT_EQ(back->debs[2].filename, "pool/main/zlib1g_1.0-1_amd64.deb");
  EXPECT_EQ(back->debs[2].sha256, std::string(64, 'c'));
  // Written again from what was read: the same bytes.
  EXPECT_EQ(bundle_index(*back).bytes, index.bytes);
}

// Referrers (bundle create --referrers) sit after the images, by subject,
// artifact type and digest, read back with their subject; a bundle without
// them keeps the bytes it had.
TEST(BundleFormat, ReferrersAreListedWithTheirSubject) {
  auto plain = bundle_index(sample());
  auto c = sample();
  auto referrer = [](const std::string& type, unsigned seed, const oci::Digest& subject) {
    oci::Descriptor d = oci::descriptor_for(oci::media::kOciManifest, "referrer " + std::to_string(seed));
    d.artifact_type = type;
    return BundleReferrer{subject, d};
  };
  c.referrers = {referrer("application/vnd.cyclonedx+json", 1, c.images[0].root.digest),
                 referrer("application/spdx+json", 2, c.images[0].root.digest)};
  auto index = bundle_index(c);
  EXPECT_NE(index.bytes, plain.bytes);
  auto back = parse_bundle_index(index.bytes, "bundle");
  ASSERT_TRUE(back) << back.error().message();
  ASSERT_EQ(back->referrers.size(), 2u);
  EXPECT_EQ(back->referrers[0].manifest.artifact_type, "application/spdx+json");
  EXPECT_EQ(back->referrers[0].subject, c.images[0].root.digest);
  EXPECT_EQ(bundle_index(*back).bytes, index.bytes);
  auto without = parse_bundle_index(plain.bytes, "bundle");
  ASSERT_TRUE(without);
  EXPECT_TRUE(without->referrers.empty());
  // A referrer entry without a subject digest is refused, naming the entry.
  auto text = index.bytes;
  auto at = text.find("\"dev.strata.bundle.subject\":\"sha256:");
  ASSERT_NE(at, std::string::npos);
  text.replace(at, std::string("\"dev.strata.bundle.subject\":\"sha256:").size(), "\"dev.strata.bundle.subject\":\"md5:");
  auto bad = parse_bundle_index(text, "bundle.tar");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("subject"), std::string::npos) << bad.error().message();
}

TEST(BundleFormat, ADebArtifactIsThePackageWithItsAnnotations) {
  auto p = package("greet", 'a');
  auto m = deb_artifact(p);
  auto parsed = oci::parse_manifest(m.bytes, m.descriptor.media_type, "greet");
  ASSERT_TRUE(parsed);
  auto layer = artifact_layer(*parsed, kDebArtifactType, "greet");
  ASSERT_TRUE(layer) << layer.error().message();
  EXPECT_EQ(layer->digest.str(), "sha256:" + p.sha256);
  EXPECT_EQ(layer->size, 100);
  EXPECT_EQ(layer->media_type, kDebMediaType);
  const auto& ann = std::get<oci::ImageManifest>(*parsed).annotations;
  EXPECT_EQ(ann.at(std::string(kAnnotationDebPackage)), "greet");
  EXPECT_EQ(ann.at(std::string(kAnnotationDebVersion)), "1.0-1");
  EXPECT_EQ(ann.at(std::string(kAnnotationDebArch)), "amd64");
  EXPECT_EQ(ann.at(std::string(kAnnotationDebFilename)), p.filename);
  EXPECT_EQ(ann.at(std::string(kAnnotationDebSha256)), p.sha256);
  EXPECT_EQ(std::get<oci::ImageManifest>(*parsed).config.media_type, oci::media::kOciEmpty);
  // Another artifact type is refused.
  EXPECT_FALSE(artifact_layer(*parsed, kLockArtifactType, "greet"));
}

TEST(BundleFormat, ADamagedIndexIsRefusedNamingTheEntry) {
  auto text = bundle_index(sample()).bytes;
  auto refused = [&](const std::string& from, const std::string& to) {
    auto s = text;
    auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    auto r = parse_bundle_index(s, "bundle.tar");
    EXPECT_FALSE(r) << to;
    return r ? std::string() : r.error().message();
  };
  EXPECT_NE(refused("\"a.lock\"", "\"../a.lock\"").find("is not a file name"), std::string::npos);
  EXPECT_NE(refused("registry.b/team/app:v1", "Registry.B/Team").find("entry 0"), std::string::npos);
  EXPECT_NE(refused(std::string(64, 'b') + "\"", "bbb\"").find("64 lowercase hex"), std::string::npos);
  EXPECT_NE(refused("\"dev.strata.bundle.kind\":\"deb\"", "\"dev.strata.bundle.kind\":\"rpm\"").find("unknown kind"),
            std::string::npos);
  EXPECT_NE(refused("\"dev.strata.bundle.format\":\"1\"", "\"dev.strata.bundle.format\":\"9\"").find("bundle format"),
            std::string::npos);
  EXPECT_NE(refused(std::string(kBundleArtifactType), "application/x-other").find("not a strata bundle"),
            std::string::npos);
}

TEST(BundleLoad, EachImageGoesWhereItsNameAndDestSay) {
  EXPECT_EQ(*bundle_destination("registry.b/team/app:v1", ""), "docker://registry.b/team/app:v1");
  EXPECT_EQ(*bundle_destination("registry.b/team/app:v1", "docker://127.0.0.1:5000"),
            "docker://127.0.0.1:5000/team/app:v1");
  EXPECT_EQ(*bundle_destination("registry.b/team/app:v1", "docker://127.0.0.1:5000/site/"),
            "docker://127.0.0.1:5000/site/team/app:v1");
  EXPECT_EQ(*bundle_destination("docker.io/library/debian:12", "docker://mirror.internal"),
            "docker://mirror.internal/library/debian:12");
  const std::string pinned = "registry.b/team/app@sha256:" + std::string(64, 'e');
  EXPECT_EQ(*bundle_destination(pinned, "docker://h:1"), "docker://h:1/team/app@sha256:" + std::string(64, 'e'));
  EXPECT_EQ(*bundle_destination("registry.b/team/app:v1", "oci:/srv/images"), "oci:/srv/images:registry.b/team/app:v1");
  auto tagged = bundle_destination("registry.b/team/app:v1", "oci:/srv/images:x");
  ASSERT_FALSE(tagged);
  EXPECT_NE(tagged.error().message().find("give the layout alone"), std::string::npos);
  auto other = bundle_destination("registry.b/team/app:v1", "oci-archive:/x.tar");
  ASSERT_FALSE(other);
  EXPECT_NE(other.error().message().find("docker://HOST[/PREFIX]"), std::string::npos);
}

}  // namespace
}  // namespace strata::layer
