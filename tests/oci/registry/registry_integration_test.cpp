// RegistryStore against the real distribution registry (Debian
// docker-registry 2.8): plain HTTP, htpasswd over TLS, and token auth.
#include <gtest/gtest.h>

#include <random>

#include "oci/media_types.hpp"
#include "oci/registry/registry_client.hpp"
#include "oci/registry/registry_store.hpp"
#include "support/random_image.hpp"
#include "support/registry_server.hpp"

namespace strata::oci::registry {
namespace {

using strata::testing::random_bytes;
using strata::testing::RegistryServer;

RegistryOptions options_for(const RegistryServer& server, std::optional<std::filesystem::path> authfile = {}) {
  RegistryOptions o;
  if (server.mode() != RegistryServer::Mode::kHtpasswdTls) o.insecure_hosts = {server.host_port()};
  o.cert_dirs = {server.certs_dir()};
  o.use_default_cert_dirs = false;
  o.retry.initial_backoff = std::chrono::milliseconds(50);
  o.retry.max_attempts = 3;
  auto kc = Keychain::load(KeychainOptions{authfile.value_or(server.authfile()), "", "", "", ""});
  EXPECT_TRUE(kc) << kc.error().message();
  o.keychain = std::make_shared<const Keychain>(std::move(*kc));
  return o;
}

std::unique_ptr<Store> open(const RegistryServer& server, const std::string& repo, const RegistryOptions& o) {
  auto s = open_registry_store(DockerReference{server.host_port(), repo, {}, {}}, o);
  EXPECT_TRUE(s) << s.error().message();
  return std::move(*s);
}

struct TestImage {
  std::string config;
  std::string layer;
  Descriptor config_desc;
  Descriptor layer_desc;
  RawManifest manifest;
};

TestImage make_image(std::size_t layer_size, unsigned seed, std::optional<Descriptor> subject = {}) {
  TestImage img;
  img.config = R"({"architecture":"amd64","os":"linux","rootfs":{"type":"layers","diff_ids":[]},"seed":)" +
               std::to_string(seed) + "}";
  img.layer = random_bytes(layer_size, seed);
  img.config_desc = descriptor_for(media::kOciConfig, img.config);
  img.layer_desc = descriptor_for(media::kOciLayerGzip, img.layer);
  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.config = img.config_desc;
  m.layers = {img.layer_desc};
  m.subject = subject;
  img.manifest = make_raw_manifest(std::string(media::kOciManifest), serialize(m));
  return img;
}

void push_image(Store& store, const TestImage& img, std::optional<std::string_view> tag) {
  ASSERT_TRUE(write_blob(store, img.config_desc, img.config));
  ASSERT_TRUE(write_blob(store, img.layer_desc, img.layer));
  auto ok = store.put_manifest(img.manifest, tag);
  ASSERT_TRUE(ok) << ok.error().message();
}

class PlainRegistryTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto s = RegistryServer::start(RegistryServer::Mode::kPlain);
    ASSERT_TRUE(s) << s.error().message();
    server_ = s->release();
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }
  static RegistryServer* server_;
};
RegistryServer* PlainRegistryTest::server_ = nullptr;

TEST_F(PlainRegistryTest, PushPullResolveRoundTrip) {
  auto store = open(*server_, "test/roundtrip", options_for(*server_));
  auto img = make_image(5 << 20, 1);  // larger than the upload pipe
  push_image(*store, img, "v1");
  EXPECT_TRUE(*store->has_blob(img.layer_desc));
  EXPECT_FALSE(*store->has_blob(descriptor_for("x", "absent")));
  auto desc = store->resolve("v1");
  ASSERT_TRUE(desc) << desc.error().message();
  EXPECT_EQ(desc->digest, img.manifest.descriptor.digest);
  EXPECT_EQ(desc->media_type, media::kOciManifest);
  EXPECT_EQ(desc->size, img.manifest.descriptor.size);
  auto by_digest = store->get_manifest(img.manifest.descriptor.digest.str());
  ASSERT_TRUE(by_digest) << by_digest.error().message();
  EXPECT_EQ(by_digest->bytes, img.manifest.bytes);
  auto layer = read_blob(*store, img.layer_desc, 64 << 20);
  ASSERT_TRUE(layer) << layer.error().message();
  EXPECT_EQ(*layer, img.layer);
  StringSink tail;
  ASSERT_TRUE(store->fetch_blob(img.layer_desc, tail, 1000));
  EXPECT_EQ(tail.str(), img.layer.substr(1000));
  auto missing = store->get_manifest("nope");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(ErrorCode::kNotFound)) << missing.error().message();
  EXPECT_NE(missing.error().message().find("docker://" + server_->host_port() + "/test/roundtrip"), std::string::npos);
}

TEST_F(PlainRegistryTest, ChunkedUploadAndEmptyBlob) {
  auto o = options_for(*server_);
  o.chunk_size = 256 * 1024;
  auto store = open(*server_, "test/chunked", o);
  const std::string blob = random_bytes(1'000'001, 2);
  auto desc = descriptor_for(media::kOciLayer, blob);
  ASSERT_TRUE(write_blob(*store, desc, blob));
  EXPECT_EQ(*read_blob(*store, desc, 4 << 20), blob);
  auto empty = descriptor_for(media::kOciLayer, "");
  auto plain = open(*server_, "test/chunked", options_for(*server_));
  auto ok = write_blob(*plain, empty, "");
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_TRUE(*plain->has_blob(empty));
}

TEST_F(PlainRegistryTest, WrongBytesNeverCommitAndWrongManifestDigestIsRefused) {
  auto store = open(*server_, "test/wrong", options_for(*server_));
  const std::string good = random_bytes(300'000, 3);
  std::string bad = good;
  bad[bad.size() - 1] ^= 1;
  auto desc = descriptor_for(media::kOciLayer, good);
  auto w = store->blob_writer(desc);
  ASSERT_TRUE(w);
  ASSERT_TRUE((*w)->write(as_bytes(bad)));
  auto ok = (*w)->commit();
  ASSERT_FALSE(ok);
  EXPECT_TRUE(ok.error().is(ErrorCode::kFailedPrecondition)) << ok.error().message();
  EXPECT_FALSE(*store->has_blob(desc));
  EXPECT_FALSE(*store->has_blob(descriptor_for(media::kOciLayer, bad)));

  auto img = make_image(10, 4);
  ASSERT_TRUE(write_blob(*store, img.config_desc, img.config));
  ASSERT_TRUE(write_blob(*store, img.layer_desc, img.layer));
  RawManifest lying = img.manifest;
  lying.descriptor.digest = Digest::sha256_of("something else");
  auto put = store->put_manifest(lying, std::nullopt);
  ASSERT_FALSE(put);
  EXPECT_TRUE(put.error().is(ErrorCode::kFailedPrecondition)) << put.error().message();
  EXPECT_NE(put.error().message().find("DIGEST_INVALID"), std::string::npos) << put.error().message();
}

TEST_F(PlainRegistryTest, CrossRepositoryMount) {
  auto src = open(*server_, "test/mount-src", options_for(*server_));
  auto dst = open(*server_, "test/mount-dst", options_for(*server_));
  const std::string blob = random_bytes(50'000, 5);
  auto desc = descriptor_for(media::kOciLayer, blob);
  ASSERT_TRUE(write_blob(*src, desc, blob));
  auto mounted = dst->mount_blob(desc, *src);
  ASSERT_TRUE(mounted) << mounted.error().message();
  EXPECT_TRUE(*mounted);
  EXPECT_TRUE(*dst->has_blob(desc));
  auto absent = descriptor_for(media::kOciLayer, "not there");
  auto not_mounted = dst->mount_blob(absent, *src);
  ASSERT_TRUE(not_mounted);
  EXPECT_FALSE(*not_mounted);
}

TEST_F(PlainRegistryTest, MultiArchIndexTagsReferrersAndDelete) {
  auto store = open(*server_, "test/index", options_for(*server_));
  auto amd = make_image(1000, 6);
  auto arm = make_image(1000, 7);
  push_image(*store, amd, std::nullopt);
  push_image(*store, arm, std::nullopt);
  ImageIndex idx;
  idx.media_type = std::string(media::kOciIndex);
  idx.manifests = {amd.manifest.descriptor, arm.manifest.descriptor};
  idx.manifests[0].platform = Platform{"linux", "amd64", "", ""};
  idx.manifests[1].platform = Platform{"linux", "arm64", "v8", ""};
  auto raw = make_raw_manifest(std::string(media::kOciIndex), serialize(idx));
  ASSERT_TRUE(store->put_manifest(raw, "multi"));
  ASSERT_TRUE(store->put_manifest(raw, "also"));
  auto got = store->get_manifest("multi");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->bytes, raw.bytes);
  EXPECT_EQ(got->descriptor.media_type, media::kOciIndex);
  auto tags = store->list_tags();
  ASSERT_TRUE(tags);
  std::sort(tags->begin(), tags->end());
  EXPECT_EQ(*tags, (std::vector<std::string>{"also", "multi"}));

  // An artifact referring to amd: 2.8 has no referrers API, so the store
  // keeps the tag-schema index and reads it back through the fallback.
  auto sig = make_image(20, 8, amd.manifest.descriptor);
  push_image(*store, sig, std::nullopt);
  auto refs = store->referrers(amd.manifest.descriptor.digest);
  ASSERT_TRUE(refs) << refs.error().message();
  ASSERT_EQ(refs->manifests.size(), 1u);
  EXPECT_EQ(refs->manifests[0].digest, sig.manifest.descriptor.digest);
  EXPECT_EQ(refs->manifests[0].artifact_type, std::string(media::kOciConfig));
  push_image(*store, sig, std::nullopt);  // again: no duplicate entry
  EXPECT_EQ(store->referrers(amd.manifest.descriptor.digest)->manifests.size(), 1u);
  EXPECT_TRUE(store->referrers(arm.manifest.descriptor.digest)->manifests.empty());

  ASSERT_TRUE(store->delete_manifest(raw.descriptor.digest));
  auto gone = store->get_manifest("multi");
  ASSERT_FALSE(gone);
  EXPECT_TRUE(gone.error().is(ErrorCode::kNotFound));
  auto again = store->delete_manifest(raw.descriptor.digest);
  ASSERT_FALSE(again);
  EXPECT_TRUE(again.error().is(ErrorCode::kNotFound));
}

TEST_F(PlainRegistryTest, ManifestOfExactly4MiBIsAcceptedAndLargerIsRefused) {
  auto store = open(*server_, "test/big", options_for(*server_));
  auto img = make_image(10, 9);
  ASSERT_TRUE(write_blob(*store, img.config_desc, img.config));
  ASSERT_TRUE(write_blob(*store, img.layer_desc, img.layer));
  auto build = [&](std::size_t total) {
    ImageManifest m;
    m.media_type = std::string(media::kOciManifest);
    m.config = img.config_desc;
    m.layers = {img.layer_desc};
    m.annotations["pad"] = "";
    std::size_t base = serialize(m).size();
    m.annotations["pad"] = std::string(total - base, 'x');
    return make_raw_manifest(std::string(media::kOciManifest), serialize(m));
  };
  auto exact = build(kMaxManifestBytes);
  ASSERT_EQ(exact.bytes.size(), kMaxManifestBytes);
  auto ok = store->put_manifest(exact, "exact");
  ASSERT_TRUE(ok) << ok.error().message();
  auto back = store->get_manifest("exact");
  ASSERT_TRUE(back) << back.error().message();
  EXPECT_EQ(back->descriptor.digest, exact.descriptor.digest);
  auto over = build(kMaxManifestBytes + 1);
  auto refused = store->put_manifest(over, "over");
  ASSERT_FALSE(refused);
  EXPECT_TRUE(refused.error().is(ErrorCode::kInvalidArgument));
  EXPECT_NE(refused.error().message().find("4 MiB"), std::string::npos) << refused.error().message();
}

TEST(TlsRegistryTest, BasicAuthOverTlsWithCaFromCertsDirAndWrongPassword) {
  auto server = RegistryServer::start(RegistryServer::Mode::kHtpasswdTls);
  ASSERT_TRUE(server) << server.error().message();
  auto store = open(**server, "test/tls", options_for(**server));
  auto img = make_image(100'000, 10);
  push_image(*store, img, "v1");
  auto got = store->get_manifest("v1");
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(got->bytes, img.manifest.bytes);

  auto wrong = open(**server, "test/tls", options_for(**server, (*server)->write_authfile("testuser", "wrong")));
  auto denied = wrong->get_manifest("v1");
  ASSERT_FALSE(denied);
  EXPECT_TRUE(denied.error().is(ErrorCode::kUnauthorized)) << denied.error().message();
  EXPECT_NE(denied.error().message().find("--authfile"), std::string::npos);
  EXPECT_EQ(denied.error().message().find("wrong"), std::string::npos) << "no password in messages";

  // Without the certs dir the self-signed certificate is refused.
  auto o = options_for(**server);
  o.cert_dirs.clear();
  auto untrusted = open(**server, "test/tls", o);
  auto refused = untrusted->get_manifest("v1");
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("certs.d"), std::string::npos) << refused.error().message();
}

TEST(TokenRegistryTest, TokenAuthPushPullAndMountWithScopeOnTheSource) {
  auto server = RegistryServer::start(RegistryServer::Mode::kToken);
  ASSERT_TRUE(server) << server.error().message();
  auto o = options_for(**server);
  auto src = open(**server, "test/token-src", o);
  auto img = make_image(70'000, 11);
  push_image(*src, img, "v1");
  auto got = src->get_manifest("v1");
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(got->bytes, img.manifest.bytes);

  auto dst = open(**server, "test/token-dst", o);
  auto mounted = dst->mount_blob(img.layer_desc, *src);
  ASSERT_TRUE(mounted) << mounted.error().message();
  EXPECT_TRUE(*mounted) << (*server)->token_log();
  EXPECT_TRUE(*dst->has_blob(img.layer_desc));
  const std::string log = (*server)->token_log();
  EXPECT_NE(log.find("repository:test/token-src:pull"), std::string::npos) << log;
  EXPECT_NE(log.find("repository:test/token-dst:pull,push"), std::string::npos) << log;

  // Anonymous: pulls are granted, pushes are not.
  auto anon = open(**server, "test/token-src", options_for(**server, (*server)->write_authfile("", "")));
  ASSERT_TRUE(anon->get_manifest("v1"));
  auto push = anon->blob_writer(descriptor_for(media::kOciLayer, "x"));
  ASSERT_FALSE(push);
  EXPECT_TRUE(push.error().is(ErrorCode::kUnauthorized)) << push.error().message();
}

}  // namespace
}  // namespace strata::oci::registry
