#include "oci/registry/registry_store.hpp"

#include <gtest/gtest.h>

#include <map>

#include "oci/media_types.hpp"
#include "oci/registry/authenticator.hpp"
#include "oci/registry/fake_transport.hpp"
#include "oci/registry/registry_client.hpp"

namespace strata::oci::registry {
namespace {

using testing::FakeTransport;
using testing::RecordedRequest;

constexpr std::string_view kReg = "https://reg.example";

std::unique_ptr<Store> open_with(std::shared_ptr<http::Transport> t, Clock& clock, std::string repo = "team/app") {
  RegistryOptions o;
  o.transport = std::move(t);
  o.clock = &clock;
  o.keychain = std::make_shared<const Keychain>(Keychain::anonymous());
  DockerReference ref{"reg.example", std::move(repo), std::nullopt, std::nullopt};
  auto store = open_registry_store(ref, o);
  EXPECT_TRUE(store) << store.error().message();
  return std::move(*store);
}

// A registry with token auth: /v2/ challenges, /token issues tokens naming
// their scopes, resources require a token with the scope they need.
struct TokenRegistry {
  int token_calls = 0;
  std::vector<std::string> token_urls;
  std::int64_t expires_in = 300;
  std::map<std::string, std::string> manifests;  // path → bytes

  Result<http::Response> handle(http::Request& r, const RecordedRequest&) {
    std::string auth = r.headers.get("Authorization").value_or("");
    const std::string challenge = R"(Bearer realm="https://auth.example/token",service="reg.example")";
    if (r.url.starts_with("https://auth.example/token")) {
      ++token_calls;
      token_urls.push_back(r.url);
      std::string scopes = r.url.substr(r.url.find("scope="));
      return FakeTransport::respond(r, 200, R"({"token":"tok-)" + std::to_string(token_calls) + R"(|)" + scopes +
                                                R"(","expires_in":)" + std::to_string(expires_in) + "}");
    }
    if (r.url == std::string(kReg) + "/v2/") return FakeTransport::respond(r, 401, "", {{"WWW-Authenticate", challenge}});
    auto need = r.method == "GET" || r.method == "HEAD" ? std::string("pull") : std::string("push");
    if (auth.find("team%2Fapp%3Apull%2Cpush") == std::string::npos &&
        (need == "push" || auth.find("team%2Fapp%3Apull") == std::string::npos)) {
      std::string scope = need == "push" ? "repository:team/app:pull,push" : "repository:team/app:pull";
      return FakeTransport::respond(r, 401, R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]})",
                                    {{"WWW-Authenticate", challenge + R"(,scope=")" + scope + R"(",error="insufficient_scope")"}});
    }
    if (r.method == "GET" && r.url.find("/manifests/") != std::string::npos) {
      auto it = manifests.find(r.url.substr(r.url.find("/manifests/") + 11));
      if (it == manifests.end())
        return FakeTransport::respond(r, 404, R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]})");
      return FakeTransport::respond(r, 200, it->second, {{"Content-Type", std::string(media::kOciManifest)}});
    }
    if (r.method == "POST") return FakeTransport::respond(r, 202, "", {{"Location", "/v2/team/app/blobs/uploads/u1?_state=s"}});
    if (r.method == "DELETE") return FakeTransport::respond(r, 204);
    return FakeTransport::respond(r, 404);
  }
};

const std::string kManifest =
    R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json","config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a","size":2},"layers":[]})";

TEST(RegistryStoreAuthTest, CachesTokensUntilExpiry) {
  TokenRegistry reg;
  reg.manifests["v1"] = kManifest;
  reg.expires_in = 120;
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) { return reg.handle(r, rec); });
  ManualClock clock(1'700'000'000);
  auto store = open_with(fake, clock);
  auto m = store->get_manifest("v1");
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_EQ(m->bytes, kManifest);
  EXPECT_EQ(m->descriptor.digest, Digest::sha256_of(kManifest));
  EXPECT_EQ(reg.token_calls, 1);
  ASSERT_TRUE(store->get_manifest("v1"));
  clock.advance(100);
  ASSERT_TRUE(store->get_manifest("v1"));
  EXPECT_EQ(reg.token_calls, 1) << "a cached, unexpired token is reused";
  clock.advance(30);  // 130 s > 120 s lifetime
  ASSERT_TRUE(store->get_manifest("v1"));
  EXPECT_EQ(reg.token_calls, 2) << "an expired token is fetched again";
  EXPECT_NE(reg.token_urls[0].find("service=reg.example"), std::string::npos);
  EXPECT_NE(reg.token_urls[0].find("scope=repository%3Ateam%2Fapp%3Apull"), std::string::npos);
}

TEST(RegistryStoreAuthTest, InsufficientScopeAddsTheScopeAndRetriesOnce) {
  TokenRegistry reg;
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) { return reg.handle(r, rec); });
  ManualClock clock(1'700'000'000);
  auto store = open_with(fake, clock);
  // blob_writer POSTs with push scope already: one token.
  auto w = store->blob_writer(descriptor_for("application/octet-stream", "x"));
  ASSERT_TRUE(w) << w.error().message();
  (*w)->abort();
  EXPECT_EQ(reg.token_calls, 1);
  EXPECT_NE(reg.token_urls[0].find("pull%2Cpush"), std::string::npos);
}

TEST(RegistryStoreAuthTest, TokenRequestsCarryBasicCredentialsAndExpiredTokenIsRefreshedOnChallenge) {
  int token_calls = 0;
  std::string seen_token_auth;
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest&) {
    if (r.url.starts_with("https://auth.example/token")) {
      ++token_calls;
      seen_token_auth = r.headers.get("Authorization").value_or("");
      return FakeTransport::respond(r, 200, R"({"access_token":"t)" + std::to_string(token_calls) + R"("})");
    }
    const std::string ch = R"(Bearer realm="https://auth.example/token",service="svc")";
    if (r.url == "https://reg.example/v2/") return FakeTransport::respond(r, 401, "", {{"WWW-Authenticate", ch}});
    // Only the second token is accepted: the first one is "revoked".
    if (r.headers.get("Authorization") != "Bearer t2")
      return FakeTransport::respond(r, 401, "", {{"WWW-Authenticate", ch + R"(,error="invalid_token")"}});
    return FakeTransport::respond(r, 200, "", {});
  });
  ManualClock clock(1'700'000'000);
  auto auth = std::make_shared<Authenticator>("reg.example", Credential{"user", "pa:ss", ""}, fake, clock);
  RegistryClient client("reg.example", false, fake, auth);
  http::Request req;
  req.method = "HEAD";
  req.url = "https://reg.example/v2/team/app/blobs/sha256:1";
  auto resp = client.send(req, {"repository:team/app:pull"});
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(token_calls, 2);
  EXPECT_EQ(seen_token_auth, "Basic " + base64_encode("user:pa:ss"));
}

TEST(RegistryStoreAuthTest, BasicAuthWrongPasswordIsUnauthorizedWithoutLeakingIt) {
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest&) {
    return FakeTransport::respond(r, 401, R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]})",
                                  {{"WWW-Authenticate", R"(Basic realm="test")"}});
  });
  ManualClock clock(0);
  auto auth = std::make_shared<Authenticator>("reg.example", Credential{"user", "hunter2", ""}, fake, clock);
  auto client = std::make_shared<RegistryClient>("reg.example", false, fake, auth);
  RegistryOptions o;
  RegistryStore store(DockerReference{"reg.example", "team/app", {}, {}}, client, o);
  auto tags = store.list_tags();
  ASSERT_FALSE(tags);
  EXPECT_TRUE(tags.error().is(ErrorCode::kUnauthorized));
  EXPECT_NE(tags.error().message().find("--authfile"), std::string::npos);
  EXPECT_EQ(tags.error().message().find("hunter2"), std::string::npos);
  // The first 401 taught the Basic challenge, so the repeated request carried
  // the credentials; a refusal of sent credentials is not retried.
  ASSERT_EQ(fake->requests.size(), 2u);
  EXPECT_TRUE(fake->requests[1].headers.get("Authorization"));
}

// A plain registry (no auth) for store behaviour.
std::shared_ptr<FakeTransport> plain(std::function<Result<http::Response>(http::Request&)> f) {
  return std::make_shared<FakeTransport>([f](http::Request& r, const RecordedRequest&) -> Result<http::Response> {
    if (r.url == "https://reg.example/v2/") return FakeTransport::respond(r, 200, "{}");
    return f(r);
  });
}

// Distribution answers MANIFEST_BLOB_UNKNOWN for a moment while a second
// builder commits the same blob: the PUT is retried, each time with the whole
// manifest; a blob that stays unknown is reported after a few tries.
TEST(RegistryStoreTest, AManifestRefusedForAnUnknownBlobIsRetriedAFewTimes) {
  const std::string unknown =
      R"({"errors":[{"code":"MANIFEST_BLOB_UNKNOWN","message":"blob unknown to registry","detail":"sha256:ab"}]})";
  auto manifest = make_raw_manifest(std::string(media::kOciManifest), R"({"schemaVersion":2})");
  for (int refusals : {2, 99}) {
    int puts = 0;
    auto fake = plain([&](http::Request& r) -> Result<http::Response> {
      if (r.method != "PUT") return FakeTransport::respond(r, 404);
      const bool refuse = puts++ < refusals;
      return FakeTransport::respond(r, refuse ? 400 : 201, refuse ? unknown : "");
    });
    ManualClock clock(0);
    auto store = open_with(fake, clock);
    auto put = store->put_manifest(manifest, "v1");
    std::vector<std::string> bodies;
    for (const auto& rec : fake->requests)
      if (rec.method == "PUT") bodies.push_back(rec.body);
    if (refusals == 2) {
      ASSERT_TRUE(put) << put.error().message();
      EXPECT_EQ(bodies.size(), 3u);
      EXPECT_EQ(clock.total_slept(), std::chrono::milliseconds(300));
    } else {
      ASSERT_FALSE(put);
      EXPECT_EQ(bodies.size(), 4u) << "bounded";
      EXPECT_NE(put.error().message().find("MANIFEST_BLOB_UNKNOWN"), std::string::npos) << put.error().message();
    }
    for (const auto& b : bodies) EXPECT_EQ(b, manifest.bytes);
  }
}

TEST(RegistryStoreTest, ResumesABlobDownloadWithRangeAfterAMidBodyFailure) {
  const std::string blob = "0123456789abcdefghij";
  auto desc = descriptor_for("application/octet-stream", blob);
  int gets = 0;
  std::vector<std::string> ranges;
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    ++gets;
    ranges.push_back(r.headers.get("Range").value_or(""));
    if (gets == 1) {
      auto part = FakeTransport::respond(r, 200, blob.substr(0, 7));
      return fail(ErrorCode::kUnavailable, "transfer closed with 13 bytes remaining");
    }
    if (gets == 2) {
      auto part = FakeTransport::respond(r, 206, blob.substr(7, 5), {{"Content-Range", "bytes 7-19/20"}});
      return fail(ErrorCode::kUnavailable, "connection reset");
    }
    return FakeTransport::respond(r, 206, blob.substr(12), {{"Content-Range", "bytes 12-19/20"}});
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  StringSink sink;
  VerifyingSink verify(sink, desc.digest, desc.size);
  auto ok = store->fetch_blob(desc, verify);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_TRUE(verify.verify("blob"));
  EXPECT_EQ(sink.str(), blob);
  EXPECT_EQ(ranges, (std::vector<std::string>{"", "bytes=7-", "bytes=12-"}));
}

TEST(RegistryStoreTest, AResumeThatIgnoresRangeTakesTheWholeBody) {
  const std::string blob = "0123456789abcdefghij";
  auto desc = descriptor_for("application/octet-stream", blob);
  int gets = 0;
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    if (++gets % 2 == 1) {
      auto part = FakeTransport::respond(r, 200, blob.substr(0, 7));
      return fail(ErrorCode::kUnavailable, "reset");
    }
    return FakeTransport::respond(r, 200, blob);  // Range ignored: whole body again
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  // A sink that can start over does: it ends with the blob, once.
  StringSink sink;
  auto ok = store->fetch_blob(desc, sink);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(sink.str(), blob);
  // One that cannot (its bytes are consumed) gets the rest of the body
  // after what it already has.
  struct Appending final : ByteSink {
    std::string got;
    Result<void> write(std::span<const std::byte> d) override {
      got.append(reinterpret_cast<const char*>(d.data()), d.size());
      return {};
    }
  } appending;
  ok = store->fetch_blob(desc, appending);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(appending.got, blob);
}

TEST(RegistryStoreTest, RefusesAResumeWithTheWrongContentRange) {
  const std::string blob = "0123456789abcdefghij";
  auto desc = descriptor_for("application/octet-stream", blob);
  int gets = 0;
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    if (++gets == 1) {
      auto part = FakeTransport::respond(r, 200, blob.substr(0, 7));
      return fail(ErrorCode::kUnavailable, "reset");
    }
    return FakeTransport::respond(r, 206, blob.substr(3), {{"Content-Range", "bytes 3-19/20"}});
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  StringSink sink;
  auto ok = store->fetch_blob(desc, sink);
  ASSERT_FALSE(ok);
  EXPECT_TRUE(ok.error().is(ErrorCode::kFailedPrecondition)) << ok.error().message();
  EXPECT_NE(ok.error().message().find("did not honour Range"), std::string::npos);
  EXPECT_EQ(sink.str(), blob.substr(0, 7)) << "the misplaced body never reached the sink";
}

TEST(RegistryStoreTest, FollowsTagPaginationWithRelativeAndAbsoluteLinks) {
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    if (r.url.ends_with("/tags/list"))
      return FakeTransport::respond(r, 200, R"({"name":"team/app","tags":["a","b"]})",
                                    {{"Link", R"(</v2/team/app/tags/list?last=b&n=2>; rel="next")"}});
    if (r.url.ends_with("last=b&n=2"))
      return FakeTransport::respond(r, 200, R"({"name":"team/app","tags":["c","b"]})",
                                    {{"Link", R"(<https://reg.example/v2/team/app/tags/list?last=c&n=2>; rel="next")"}});
    return FakeTransport::respond(r, 200, R"({"name":"team/app","tags":["d"]})");
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  auto tags = store->list_tags();
  ASSERT_TRUE(tags) << tags.error().message();
  EXPECT_EQ(*tags, (std::vector<std::string>{"a", "b", "c", "d"}));
}

// A tag list is held whole, so it is bounded in all: a registry that pages
// on with big pages (here 2 MiB each, 40 of them) is refused past 64 MiB
// with a message naming the repository, not read until memory runs out.
TEST(RegistryStoreTest, ATagListIsBoundedAcrossPages) {
  int pages = 0;
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    if (r.url.find("/tags/list") == std::string::npos) return FakeTransport::respond(r, 404);
    ++pages;
    std::string tag(2 << 20, static_cast<char>('a' + pages % 26));
    tag += std::to_string(pages);
    std::vector<std::pair<std::string, std::string>> next;
    if (pages < 40) next = {{"Link", "</v2/team/app/tags/list?last=" + std::to_string(pages) + R"(&n=1>; rel="next")"}};
    return FakeTransport::respond(r, 200, R"({"name":"team/app","tags":[")" + tag + R"("]})", next);
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  auto tags = store->list_tags();
  ASSERT_FALSE(tags) << "read " << tags->size() << " tags of " << pages << " pages";
  EXPECT_NE(tags.error().message().find("reg.example/team/app"), std::string::npos) << tags.error().message();
  EXPECT_NE(tags.error().message().find("64.0 MiB of tag lists"), std::string::npos) << tags.error().message();
  EXPECT_LE(pages, 33);
}

TEST(RegistryStoreTest, MapsRegistryErrorsToCodes) {
  int status = 404;
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    return FakeTransport::respond(r, status, R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown","detail":{"Tag":"nope"}}]})");
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  auto m = store->get_manifest("nope");
  ASSERT_FALSE(m);
  EXPECT_TRUE(m.error().is(ErrorCode::kNotFound));
  EXPECT_NE(m.error().message().find("docker://reg.example/team/app"), std::string::npos) << m.error().message();
  EXPECT_NE(m.error().message().find("nope"), std::string::npos);
  EXPECT_NE(m.error().message().find("MANIFEST_UNKNOWN"), std::string::npos);
  status = 403;
  EXPECT_TRUE(store->get_manifest("x").error().is(ErrorCode::kUnauthorized));
  status = 503;  // the injected fake has no retry decorator: one 503 is final
  EXPECT_TRUE(store->get_manifest("x").error().is(ErrorCode::kUnavailable));
  status = 400;
  EXPECT_TRUE(store->get_manifest("x").error().is(ErrorCode::kInvalidArgument));
}

TEST(RegistryStoreTest, RefusesManifestsThatDoNotMatchTheirDigest) {
  auto fake = plain([&](http::Request& r) -> Result<http::Response> {
    return FakeTransport::respond(r, 200, kManifest + " ", {{"Content-Type", std::string(media::kOciManifest)}});
  });
  ManualClock clock(0);
  auto store = open_with(fake, clock);
  auto m = store->get_manifest(Digest::sha256_of(kManifest).str());
  ASSERT_FALSE(m);
  EXPECT_TRUE(m.error().is(ErrorCode::kFailedPrecondition));
}

TEST(RegistryStoreTest, ChunkedUploadSendsInOrderRangesToTheNewestLocation) {
  std::vector<RecordedRequest> seen;
  int n = 0;
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) -> Result<http::Response> {
    if (r.url == "https://reg.example/v2/") return FakeTransport::respond(r, 200, "{}");
    seen.push_back(rec);
    if (r.method == "POST")
      return FakeTransport::respond(r, 202, "", {{"Location", "/up/0"}, {"OCI-Chunk-Min-Length", "4"}});
    if (r.method == "PATCH") return FakeTransport::respond(r, 202, "", {{"Location", "/up/" + std::to_string(++n)}});
    if (r.method == "PUT")
      return FakeTransport::respond(r, 201, "", {{"Docker-Content-Digest", Digest::sha256_of("abcdefghij").str()}});
    return FakeTransport::respond(r, 204);
  });
  ManualClock clock(0);
  RegistryOptions o;
  o.transport = fake;
  o.clock = &clock;
  o.chunk_size = 3;  // below the registry's minimum of 4: 4 wins
  o.keychain = std::make_shared<const Keychain>(Keychain::anonymous());
  auto store = open_registry_store(DockerReference{"reg.example", "team/app", {}, {}}, o);
  ASSERT_TRUE(store);
  auto desc = descriptor_for("application/octet-stream", "abcdefghij");
  auto w = (*store)->blob_writer(desc);
  ASSERT_TRUE(w);
  ASSERT_TRUE((*w)->write(as_bytes("abcde")));
  ASSERT_TRUE((*w)->write(as_bytes("fghij")));
  auto ok = (*w)->commit();
  ASSERT_TRUE(ok) << ok.error().message();
  ASSERT_EQ(seen.size(), 5u);
  EXPECT_EQ(seen[1].headers.get("Content-Range"), "0-3");
  EXPECT_EQ(seen[1].body, "abcd");
  EXPECT_EQ(seen[2].url, "https://reg.example/up/1");
  EXPECT_EQ(seen[2].headers.get("Content-Range"), "4-7");
  EXPECT_EQ(seen[3].body, "ij");
  EXPECT_EQ(seen[4].method, "PUT");
  EXPECT_EQ(seen[4].url, "https://reg.example/up/3?digest=sha256%3A" + std::string(desc.digest.hex()));
}

}  // namespace
}  // namespace strata::oci::registry
