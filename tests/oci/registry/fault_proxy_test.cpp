// Registry operations through tests/support/fault_proxy.py in front of the
// real registry: each either completes with the right bytes or fails with a
// clear error; a BlobWriter never commits a corrupt blob; credentials never
// reach a host a redirect leads to.
#include <gtest/gtest.h>

#include <chrono>
#include <random>

#include "oci/http/curl_transport.hpp"
#include "oci/copy.hpp"
#include "oci/layout_store.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/registry_store.hpp"
#include "support/fault_proxy.hpp"
#include "support/random_image.hpp"
#include "support/registry_server.hpp"
#include "support/temp_dir.hpp"
#include "util/fs.hpp"

namespace strata::oci::registry {
namespace {

using strata::testing::FaultProxy;
using strata::testing::random_bytes;
using strata::testing::RegistryServer;

class FaultProxyTest : public ::testing::Test {
 protected:
  void start(RegistryServer::Mode mode) {
    auto s = RegistryServer::start(mode);
    ASSERT_TRUE(s) << s.error().message();
    server_ = std::move(*s);
    auto p = FaultProxy::start(server_->host_port(), server_->dir());
    ASSERT_TRUE(p) << p.error().message();
    proxy_ = std::move(*p);
  }
  RegistryOptions options() {
    RegistryOptions o;
    o.insecure_hosts = {proxy_->host_port()};
    o.use_default_cert_dirs = false;
    o.retry.initial_backoff = std::chrono::milliseconds(50);
    o.retry.max_attempts = 4;
    o.stall_timeout = std::chrono::seconds(2);
    // Credentials are keyed by the host the store talks to: the proxy.
    std::string cfg = server_->username().empty()
                          ? std::string(R"({"auths":{}})")
                          : R"({"auths":{")" + proxy_->host_port() + R"(":{"username":")" + server_->username() +
                                R"(","password":")" + server_->password() + R"("}}})";
    auto path = server_->dir() / "proxy-auth.json";
    EXPECT_TRUE(fs::write_file_atomic(path, cfg, 0600));
    auto kc = Keychain::load(KeychainOptions{path, "", "", "", ""});
    EXPECT_TRUE(kc);
    o.keychain = std::make_shared<const Keychain>(std::move(*kc));
    return o;
  }
  std::unique_ptr<Store> open(const std::string& repo, const RegistryOptions& o) {
    auto s = open_registry_store(DockerReference{proxy_->host_port(), repo, {}, {}}, o);
    EXPECT_TRUE(s) << s.error().message();
    return std::move(*s);
  }
  std::unique_ptr<RegistryServer> server_;
  std::unique_ptr<FaultProxy> proxy_;
};

TEST_F(FaultProxyTest, TransientErrorsAreRetriedAndExhaustionIsAClearError) {
  start(RegistryServer::Mode::kPlain);
  auto store = open("fault/retry", options());
  const std::string blob = random_bytes(100'000, 1);
  auto desc = descriptor_for(media::kOciLayer, blob);
  ASSERT_TRUE(write_blob(*store, desc, blob));
  ASSERT_TRUE(write_blob(*store, descriptor_for(media::kOciConfig, "{}"), "{}"));
  auto raw = make_raw_manifest(std::string(media::kOciManifest),
                               R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":)" +
                                   descriptor_to_json(descriptor_for(media::kOciConfig, "{}")).dump() + R"(,"layers":[]})");
  ASSERT_TRUE(store->put_manifest(raw, "t1"));
  proxy_->script(R"([{"method":"GET","path":"/blobs/","action":"status","status":503,"times":2},
                     {"method":"HEAD","path":"/blobs/","action":"status","status":429,"retry_after":"1","times":1},
                     {"method":"GET","path":"/tags/list","action":"status","status":500,"times":2}])");
  auto started = std::chrono::steady_clock::now();
  auto present = store->has_blob(desc);
  ASSERT_TRUE(present) << present.error().message();
  EXPECT_TRUE(*present);
  EXPECT_GE(std::chrono::steady_clock::now() - started, std::chrono::milliseconds(900)) << "Retry-After honoured";
  auto got = read_blob(*store, desc, 1 << 20);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(*got, blob);
  auto tags = store->list_tags();
  ASSERT_TRUE(tags) << tags.error().message();
  EXPECT_EQ(*tags, std::vector<std::string>{"t1"});
  EXPECT_EQ(proxy_->log()["applied"].size(), 5u);

  proxy_->script(R"([{"path":"/blobs/","action":"status","status":503,"times":100}])");
  auto down = store->has_blob(desc);
  ASSERT_FALSE(down);
  EXPECT_TRUE(down.error().is(ErrorCode::kUnavailable)) << down.error().message();
  EXPECT_NE(down.error().message().find("503"), std::string::npos) << down.error().message();
}

TEST_F(FaultProxyTest, DownloadsResumeAfterResetsAndTruncationAndRefuseWrongBytes) {
  start(RegistryServer::Mode::kPlain);
  auto store = open("fault/download", options());
  const std::string blob = random_bytes(3'000'000, 2);
  auto desc = descriptor_for(media::kOciLayer, blob);
  ASSERT_TRUE(write_blob(*store, desc, blob));
  proxy_->script(R"([{"method":"GET","path":"/blobs/","action":"reset","bytes":1000000,"times":1},
                     {"method":"GET","path":"/blobs/","action":"truncate","bytes":700000,"times":1}])");
  auto got = read_blob(*store, desc, 8 << 20);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_TRUE(*got == blob);
  EXPECT_EQ(proxy_->log()["applied"].size(), 2u);

  proxy_->script(R"([{"method":"GET","path":"/blobs/","action":"corrupt","offset":12345,"times":1}])");
  auto bad = read_blob(*store, desc, 8 << 20);
  ASSERT_FALSE(bad);
  EXPECT_TRUE(bad.error().is(ErrorCode::kFailedPrecondition)) << bad.error().message();

  proxy_->script(R"([{"method":"GET","path":"/manifests/","action":"slow","seconds":4,"times":1}])");
  auto img_bytes = R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":)" +
                   descriptor_to_json(descriptor_for(media::kOciConfig, "{}")).dump() + R"(,"layers":[]})";
  ASSERT_TRUE(write_blob(*store, descriptor_for(media::kOciConfig, "{}"), "{}"));
  auto raw = make_raw_manifest(std::string(media::kOciManifest), img_bytes);
  ASSERT_TRUE(store->put_manifest(raw, "slow"));
  auto m = store->get_manifest("slow");  // stalls past the 2 s limit once, then succeeds
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_EQ(m->bytes, raw.bytes);
}

TEST_F(FaultProxyTest, ResumesAgainstARegistryThatIgnoresRangeTakeTheFullBody) {
  start(RegistryServer::Mode::kPlain);
  auto store = open("fault/norange", options());
  const std::string blob = random_bytes(300'000, 5);
  auto desc = descriptor_for(media::kOciLayer, blob);
  ASSERT_TRUE(write_blob(*store, desc, blob));
  auto cfg = descriptor_for(media::kOciConfig, "{}");
  ASSERT_TRUE(write_blob(*store, cfg, "{}"));
  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.config = cfg;
  m.layers = {desc};
  auto raw = make_raw_manifest(m.media_type, serialize(m));
  ASSERT_TRUE(store->put_manifest(raw, "v1"));

  // An earlier, interrupted pull left 50 bytes in the layout's ingest.
  strata::testing::TempDir dir;
  auto layout = std::move(*LayoutStore::open(dir / "l", LayoutMode::kCreate));
  {
    auto w = layout->blob_writer(desc);
    ASSERT_TRUE(w);
    ASSERT_TRUE((*w)->write(as_bytes(std::string_view(blob).substr(0, 50))));
  }
  proxy_->script(R"([{"method":"GET","path":"/blobs/","action":"ignore_range","times":10}])");
  for (int run = 0; run < 2; ++run) {  // a rerun must not fail the same way
    auto copied = copy_image(*store, "v1", *layout, "v1", {});
    ASSERT_TRUE(copied) << copied.error().message();
  }
  EXPECT_EQ(*read_blob(*layout, desc, 1 << 20), blob);
  bool ignored = false;
  auto log = proxy_->log();
  for (const auto& a : log["applied"]) ignored = ignored || a["action"] == "ignore_range";
  EXPECT_TRUE(ignored);

  // Within one download: a reset after 100 000 bytes, and the resume
  // answered with the whole blob.
  auto applied_before = proxy_->log()["applied"].size();
  proxy_->script(R"([{"method":"GET","path":"/blobs/","action":"reset","bytes":100000,"times":1},
                     {"method":"GET","path":"/blobs/","action":"ignore_range","times":1}])");
  auto got = read_blob(*store, desc, 1 << 20);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_TRUE(*got == blob);
  EXPECT_EQ(proxy_->log()["applied"].size() - applied_before, 2u);
}

TEST_F(FaultProxyTest, AnUnresponsiveRegistryFailsWithinItsTimeouts) {
  start(RegistryServer::Mode::kPlain);
  auto o = options();
  auto store = open("fault/stall", o);
  auto cfg = descriptor_for(media::kOciConfig, "{}");
  ASSERT_TRUE(write_blob(*store, cfg, "{}"));
  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.config = cfg;
  ASSERT_TRUE(store->put_manifest(make_raw_manifest(m.media_type, serialize(m)), "v1"));

  // The default retry policy, with the timeouts set low: a registry that
  // accepts connections and never answers costs a few seconds, not minutes.
  RegistryOptions quick = o;
  quick.retry = http::RetryPolicy();
  quick.connect_timeout = std::chrono::seconds(1);
  quick.stall_timeout = std::chrono::seconds(1);
  auto stalled = open("fault/stall", quick);
  proxy_->script(R"([{"path":"/v2/","action":"stall","seconds":30,"times":100}])");
  auto started = std::chrono::steady_clock::now();
  auto r = stalled->resolve("v1");
  auto took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(ErrorCode::kDeadlineExceeded)) << r.error().message();
  EXPECT_NE(r.error().message().find("timeout"), std::string::npos) << r.error().message();
  EXPECT_LT(took, std::chrono::seconds(8)) << r.error().message();
  EXPECT_LE(proxy_->log()["applied"].size(), 3u) << "a stalled exchange is retried once";

  // A manifest announced as 200 MiB (streamed at 1 MiB/s): refused on its
  // Content-Length, before the 4 MiB limit's worth of body is read.
  proxy_->script(R"([{"method":"GET","path":"/manifests/","action":"endless","content_length":209715200,
                      "rate":1048576,"content_type":"application/vnd.oci.image.manifest.v1+json","times":10}])");
  auto applied_before = proxy_->log()["applied"].size();
  started = std::chrono::steady_clock::now();
  auto big = store->get_manifest("v1");
  took = std::chrono::steady_clock::now() - started;
  ASSERT_FALSE(big);
  EXPECT_TRUE(big.error().is(ErrorCode::kInvalidArgument)) << big.error().message();
  EXPECT_NE(big.error().message().find("209715200"), std::string::npos) << big.error().message();
  EXPECT_LT(took, std::chrono::milliseconds(2500));
  EXPECT_EQ(proxy_->log()["applied"].size() - applied_before, 1u) << "not retried";
}

// A push to a registry that accepts connections and never answers (not
// even reading an upload's body): every step of it (the HEAD checks, the
// upload's POST and PUT, the DELETE of a failed session, the copy's
// whole-blob retries) used to pay the whole timeout budget again, minutes in
// all. The budget is the host's: it fails after its timed-out exchanges, the
// error names the host and says it did not answer, and the registry saw a
// bounded number of exchanges. The timeouts are set small; no time is
// asserted, only that it returns and how many exchanges it took.
TEST_F(FaultProxyTest, APushToAnUnresponsiveRegistryFailsWithinOneTimeoutBudget) {
  start(RegistryServer::Mode::kPlain);
  strata::testing::TempDir dir;
  auto src = std::move(*LayoutStore::open(dir / "src", LayoutMode::kCreate));
  std::vector<Descriptor> layers;
  for (unsigned i = 0; i < 3; ++i) {
    const std::string bytes = random_bytes(i == 0 ? 3'000'000 : 50'000, 40 + i);
    layers.push_back(descriptor_for(media::kOciLayerGzip, bytes));
    ASSERT_TRUE(write_blob(*src, layers.back(), bytes));
  }
  auto cfg = descriptor_for(media::kOciConfig, "{}");
  ASSERT_TRUE(write_blob(*src, cfg, "{}"));
  ImageManifest m;
  m.media_type = std::string(media::kOciManifest);
  m.config = cfg;
  m.layers = layers;
  ASSERT_TRUE(src->put_manifest(make_raw_manifest(m.media_type, serialize(m)), "v1"));

  RegistryOptions quick = options();
  quick.retry = http::RetryPolicy();  // the defaults: two tries of a timed-out exchange
  quick.retry.initial_backoff = std::chrono::milliseconds(50);
  quick.connect_timeout = std::chrono::seconds(1);
  quick.stall_timeout = std::chrono::seconds(1);
  auto dst = open("fault/unresponsive", quick);
  proxy_->script(R"([{"action":"blackhole","seconds":30,"times":1000}])");
  CopyOptions copy;
  copy.jobs = 4;
  auto r = copy_image(*src, "v1", *dst, "v1", copy);
  ASSERT_FALSE(r) << "pushed to a registry that never answers";
  EXPECT_TRUE(r.error().is(ErrorCode::kDeadlineExceeded)) << r.error().message();
  EXPECT_NE(r.error().message().find(proxy_->host_port()), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("not answer"), std::string::npos) << r.error().message();
  const auto exchanges = proxy_->log()["applied"].size();
  EXPECT_LE(exchanges, static_cast<std::size_t>(http::RetryPolicy().max_timeout_attempts + copy.jobs))
      << "each step of the push paid the timeout budget again";
}

TEST_F(FaultProxyTest, InterruptedUploadsNeverCommit) {
  start(RegistryServer::Mode::kPlain);
  auto store = open("fault/upload", options());
  const std::string blob = random_bytes(2'000'000, 3);
  auto desc = descriptor_for(media::kOciLayer, blob);
  proxy_->script(R"([{"method":"PUT","path":"/blobs/uploads/","action":"drop_upload","times":1}])");
  auto w = store->blob_writer(desc);
  ASSERT_TRUE(w);
  auto wrote = (*w)->write(as_bytes(blob));
  auto committed = wrote ? (*w)->commit() : wrote;
  ASSERT_FALSE(committed);
  EXPECT_TRUE(committed.error().is(ErrorCode::kUnavailable)) << committed.error().message();
  EXPECT_FALSE(*store->has_blob(desc));
  // A fresh attempt succeeds.
  ASSERT_TRUE(write_blob(*store, desc, blob));
  EXPECT_EQ(*read_blob(*store, desc, 4 << 20), blob);

  // A 500 answer to the PUT: nothing committed, a clear error.
  auto desc2 = descriptor_for(media::kOciLayer, blob.substr(1));
  proxy_->script(R"([{"method":"PUT","path":"/blobs/uploads/","action":"status","status":500,"times":10}])");
  auto failed = write_blob(*store, desc2, blob.substr(1));
  ASSERT_FALSE(failed);
  EXPECT_TRUE(failed.error().is(ErrorCode::kUnavailable)) << failed.error().message();
  EXPECT_FALSE(*store->has_blob(desc2));
}

TEST_F(FaultProxyTest, RedirectedBlobDownloadsCarryNoCredentials) {
  start(RegistryServer::Mode::kToken);
  auto store = open("fault/redirect", options());
  const std::string blob = random_bytes(200'000, 4);
  auto desc = descriptor_for(media::kOciLayer, blob);
  ASSERT_TRUE(write_blob(*store, desc, blob));
  proxy_->script(R"([{"method":"GET","path":"/blobs/","action":"redirect","times":5}])");
  auto got = read_blob(*store, desc, 1 << 20);
  ASSERT_TRUE(got) << got.error().message();
  EXPECT_EQ(*got, blob);
  auto log = proxy_->log();
  EXPECT_GE(log["redirect_requests"].get<int>(), 1);
  EXPECT_FALSE(log["redirect_auth_seen"].get<bool>());
}

}  // namespace
}  // namespace strata::oci::registry
