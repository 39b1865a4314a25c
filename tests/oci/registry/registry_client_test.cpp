// RegistryClient without pings, scheme probing for insecure hosts, and the
// RegistryClientCache sharing one client (challenge, tokens) per registry.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>
#include <set>

#include "oci/copy.hpp"
#include "oci/http/registry_transport.hpp"
#include "oci/http/url.hpp"
#include "oci/media_types.hpp"
#include "oci/registry/authenticator.hpp"
#include "oci/registry/byte_pipe.hpp"
#include "oci/registry/fake_transport.hpp"
#include "oci/registry/registry_client.hpp"
#include "oci/registry/registry_store.hpp"
#include "util/strings.hpp"

namespace strata::oci::registry {
namespace {

using testing::FakeTransport;
using testing::RecordedRequest;

std::string decode(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size()) {
      out += static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += s[i] == '+' ? ' ' : s[i];
    }
  }
  return out;
}

// An in-memory registry behind token auth: tokens name the scopes they were
// issued for ("tok-N|scope|scope"); every resource needs a token covering
// repository:<repo>:pull (reads) or :pull,push (writes), and a mount also
// pull on the source. Counts token fetches and /v2/ pings.
struct FakeRegistry {
  bool token_auth = true;
  int token_fetches = 0;
  int pings = 0;
  std::map<std::string, std::map<std::string, std::string>> manifests;  // repo → ref → bytes
  std::map<std::string, std::set<std::string>> blobs;                   // repo → digests
  std::map<std::string, std::string> blob_bytes;                        // digest → bytes

  static std::string repo_of(const std::string& url, const std::string& marker) {
    auto v2 = url.find("/v2/") + 4;
    return url.substr(v2, url.find(marker) - v2);
  }

  bool granted(const std::string& auth, const std::string& repo, const std::string& actions) const {
    if (!token_auth) return true;
    if (!auth.starts_with("Bearer tok-")) return false;
    for (auto part : str::split(auth, '|'))
      if (part == http::url_encode("repository:" + repo + ":" + actions) ||
          part == http::url_encode("repository:" + repo + ":pull,push"))
        return true;
    return false;
  }

  Result<http::Response> handle(http::Request& r, const RecordedRequest& rec) {
    const std::string challenge = R"(Bearer realm="https://auth.example/token",service="reg.example")";
    if (r.url.starts_with("https://auth.example/token")) {
      ++token_fetches;
      std::string tok = "tok-" + std::to_string(token_fetches);
      for (auto part : str::split(r.url, '&'))
        if (part.starts_with("scope=")) tok += "|" + std::string(part.substr(6));
      nlohmann::json answer = {{"token", tok}, {"expires_in", 300}};
      return FakeTransport::respond(r, 200, answer.dump());
    }
    if (r.url.ends_with("/v2/")) {
      ++pings;
      if (token_auth) return FakeTransport::respond(r, 401, "", {{"WWW-Authenticate", challenge}});
      return FakeTransport::respond(r, 200, "{}");
    }
    const std::string auth = r.headers.get("Authorization").value_or("");
    auto deny = [&](const std::string& scope) {
      return FakeTransport::respond(r, 401, R"({"errors":[{"code":"UNAUTHORIZED","message":"authentication required"}]})",
                                    {{"WWW-Authenticate", challenge + R"(,scope=")" + scope + R"(")"}});
    };
    if (r.url.find("/manifests/") != std::string::npos) {
      auto repo = repo_of(r.url, "/manifests/");
      auto ref = r.url.substr(r.url.find("/manifests/") + 11);
      if (r.method == "PUT") {
        if (!granted(auth, repo, "pull,push")) return deny("repository:" + repo + ":pull,push");
        manifests[repo][ref] = rec.body;
        manifests[repo][Digest::sha256_of(rec.body).str()] = rec.body;
        return FakeTransport::respond(r, 201, "", {{"Docker-Content-Digest", Digest::sha256_of(rec.body).str()}});
      }
      if (!granted(auth, repo, "pull")) return deny("repository:" + repo + ":pull");
      auto it = manifests[repo].find(ref);
      if (it == manifests[repo].end())
        return FakeTransport::respond(r, 404, R"({"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]})");
      std::vector<std::pair<std::string, std::string>> h = {
          {"Content-Type", std::string(media::kOciManifest)},
          {"Docker-Content-Digest", Digest::sha256_of(it->second).str()},
          {"Content-Length", std::to_string(it->second.size())}};
      return FakeTransport::respond(r, 200, r.method == "HEAD" ? "" : it->second, h);
    }
    if (r.url.find("/blobs/uploads/") != std::string::npos && r.method == "POST") {
      auto repo = repo_of(r.url, "/blobs/uploads/");
      if (!granted(auth, repo, "pull,push")) return deny("repository:" + repo + ":pull,push");
      auto q = r.url.find("mount=");
      if (q != std::string::npos) {
        auto digest = decode(r.url.substr(q + 6, r.url.find('&', q) - q - 6));
        auto from = decode(r.url.substr(r.url.find("from=") + 5));
        if (!granted(auth, from, "pull")) return deny("repository:" + from + ":pull");
        if (blobs[from].contains(digest)) {
          blobs[repo].insert(digest);
          return FakeTransport::respond(r, 201, "", {{"Docker-Content-Digest", digest}});
        }
      }
      return FakeTransport::respond(r, 202, "", {{"Location", "/v2/" + repo + "/blobs/uploads/u1?_state=s"}});
    }
    if (r.url.find("/blobs/uploads/") != std::string::npos && r.method == "PUT") {
      auto repo = repo_of(r.url, "/blobs/uploads/");
      auto digest = Digest::sha256_of(rec.body).str();
      blobs[repo].insert(digest);
      blob_bytes[digest] = rec.body;
      return FakeTransport::respond(r, 201, "", {{"Docker-Content-Digest", digest}});
    }
    if (r.url.find("/blobs/") != std::string::npos) {
      auto repo = repo_of(r.url, "/blobs/");
      if (!granted(auth, repo, "pull")) return deny("repository:" + repo + ":pull");
      auto digest = r.url.substr(r.url.find("/blobs/") + 7);
      if (!blobs[repo].contains(digest)) return FakeTransport::respond(r, 404);
      return FakeTransport::respond(r, 200, r.method == "HEAD" ? "" : blob_bytes[digest]);
    }
    if (r.method == "DELETE") return FakeTransport::respond(r, 204);
    return FakeTransport::respond(r, 404);
  }

  // An image in `repo` tagged `tag`; returns its manifest digest.
  Digest add_image(const std::string& repo, const std::string& tag, int layers) {
    ImageManifest m;
    m.media_type = std::string(media::kOciManifest);
    std::string config = R"({"architecture":"amd64","os":"linux"})";
    m.config = descriptor_for(media::kOciConfig, config);
    blobs[repo].insert(m.config.digest.str());
    blob_bytes[m.config.digest.str()] = config;
    for (int i = 0; i < layers; ++i) {
      std::string layer = "layer-" + std::to_string(i) + std::string(1000 + i, 'x');
      auto d = descriptor_for(media::kOciLayer, layer);
      blobs[repo].insert(d.digest.str());
      blob_bytes[d.digest.str()] = layer;
      m.layers.push_back(d);
    }
    auto bytes = serialize(m);
    manifests[repo][tag] = bytes;
    manifests[repo][Digest::sha256_of(bytes).str()] = bytes;
    return Digest::sha256_of(bytes);
  }
};

RegistryOptions options_with(std::shared_ptr<http::Transport> t, Clock& clock) {
  RegistryOptions o;
  o.transport = std::move(t);
  o.clock = &clock;
  o.keychain = std::make_shared<const Keychain>(Keychain::anonymous());
  return o;
}

TEST(RegistryClientTest, AnAnonymousReadIsOneRequestWithoutAPing) {
  FakeRegistry reg;
  reg.token_auth = false;
  auto digest = reg.add_image("team/app", "v1", 1);
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) { return reg.handle(r, rec); });
  ManualClock clock(1'700'000'000);
  auto store = open_registry_store(DockerReference{"reg.example", "team/app", {}, {}}, options_with(fake, clock));
  ASSERT_TRUE(store);
  auto d = (*store)->resolve("v1");
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->digest, digest);
  ASSERT_EQ(fake->requests.size(), 1u);
  EXPECT_EQ(fake->requests[0].method, "HEAD");
  EXPECT_EQ(reg.pings, 0);
}

TEST(RegistryClientTest, TheFirst401TeachesTheChallengeWithoutUsingUpTheRetry) {
  FakeRegistry reg;
  auto digest = reg.add_image("team/app", "v1", 1);
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) { return reg.handle(r, rec); });
  ManualClock clock(1'700'000'000);
  auto store = open_registry_store(DockerReference{"reg.example", "team/app", {}, {}}, options_with(fake, clock));
  ASSERT_TRUE(store);
  auto m = (*store)->get_manifest("v1");
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_EQ(m->descriptor.digest, digest);
  // 401 (learns the challenge), token, the same GET with the token.
  ASSERT_EQ(fake->requests.size(), 3u);
  EXPECT_EQ(reg.pings, 0);
  EXPECT_EQ(reg.token_fetches, 1);
  ASSERT_TRUE((*store)->get_manifest("v1"));
  EXPECT_EQ(fake->requests.size(), 4u) << "the token and challenge are reused";
}

TEST(RegistryClientTest, AnInsecureHostIsProbedOverHttpsOnceThenSpokenToInPlainHttp) {
  int https_attempts = 0;
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest&) -> Result<http::Response> {
    if (r.url.starts_with("https://")) {
      ++https_attempts;
      return fail(ErrorCode::kUnavailable, "SSL routines::wrong version number");
    }
    return FakeTransport::respond(r, 200, "[]", {{"Content-Type", "application/json"}});
  });
  ManualClock clock(0);
  http::RetryPolicy retry;
  retry.max_attempts = 5;
  auto transport = http::decorate_registry_transport(fake, retry, clock);
  auto auth = std::make_shared<Authenticator>("127.0.0.1:5000", std::nullopt, transport, clock);
  RegistryClient client("127.0.0.1:5000", true, transport, auth);
  ASSERT_EQ(*client.origin(), "https://127.0.0.1:5000") << "undecided: https until the first exchange";
  http::Request req;
  req.url = *client.origin() + "/v2/team/app/tags/list";
  auto resp = client.send(req, {"repository:team/app:pull"});
  ASSERT_TRUE(resp) << resp.error().message();
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(https_attempts, 1) << "the TLS probe of an insecure host is not retried";
  EXPECT_EQ(*client.origin(), "http://127.0.0.1:5000");
  http::Request again;
  again.url = "https://127.0.0.1:5000/v2/team/app/tags/list";  // built before the scheme was known
  ASSERT_TRUE(client.send(again, {"repository:team/app:pull"}));
  EXPECT_EQ(https_attempts, 1);
  EXPECT_EQ(fake->requests.back().url, "http://127.0.0.1:5000/v2/team/app/tags/list");
  EXPECT_EQ(client.pings(), 0);
}

// --insecure-registry is suggested when the TLS handshake got another answer
// (a plain-HTTP registry), not for a port that refuses or a name that does
// not resolve, which plain HTTP would not help.
TEST(RegistryClientTest, OnlyAFailedTlsHandshakeSuggestsInsecureRegistry) {
  for (const std::string& why : {std::string(http::kTlsHandshakeFailed) + ": wrong version number",
                                 std::string("Failed to connect to reg.example port 5000: Couldn't connect to server"),
                                 std::string("Could not resolve host: reg.example")}) {
    auto fake = std::make_shared<FakeTransport>([&](http::Request&, const RecordedRequest&) -> Result<http::Response> {
      return fail(ErrorCode::kUnreachable, why);
    });
    ManualClock clock(0);
    auto auth = std::make_shared<Authenticator>("reg.example:5000", std::nullopt, fake, clock);
    RegistryClient client("reg.example:5000", false, fake, auth);
    http::Request req;
    req.url = "https://reg.example:5000/v2/a/tags/list";
    auto resp = client.send(req, {});
    ASSERT_FALSE(resp);
    const bool hinted = resp.error().message().find("--insecure-registry reg.example:5000") != std::string::npos;
    EXPECT_EQ(hinted, why.starts_with(http::kTlsHandshakeFailed)) << resp.error().message();
    EXPECT_TRUE(resp.error().is(ErrorCode::kUnreachable));
  }
}

TEST(RegistryClientTest, ACoveringTokenServesNarrowerScopes) {
  FakeRegistry reg;
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) { return reg.handle(r, rec); });
  ManualClock clock(1'700'000'000);
  Authenticator auth("reg.example", std::nullopt, fake, clock);
  auth.learn(*pick_challenge({R"(Bearer realm="https://auth.example/token",service="reg.example")"}));
  http::Request a;
  ASSERT_TRUE(auth.authorize(a, {"repository:dst:pull,push", "repository:src:pull"}));
  http::Request b, c, d;
  ASSERT_TRUE(auth.authorize(b, {"repository:dst:pull"}));
  ASSERT_TRUE(auth.authorize(c, {"repository:src:pull"}));
  ASSERT_TRUE(auth.authorize(d, {"repository:dst:pull,push"}));
  EXPECT_EQ(auth.token_fetches(), 1);
  EXPECT_EQ(b.headers.get("Authorization"), a.headers.get("Authorization"));
  http::Request e;
  ASSERT_TRUE(auth.authorize(e, {"repository:src:pull,push"}));
  EXPECT_EQ(auth.token_fetches(), 2) << "push on src was never asked for";
}

// A copy between two repositories of one token-auth registry through one
// RegistryClientCache: one client, no ping, and tokens reused across the
// two stores — three fetches (source pull; destination pull; the mount's
// push+source pull, which then also serves the manifest PUTs), where stores
// with their own clients need one more and ping twice.
TEST(RegistryClientTest, ACopyWithinARegistrySharesOneClientAndItsTokens) {
  FakeRegistry reg;
  auto digest = reg.add_image("team/src", "v1", 3);
  auto fake = std::make_shared<FakeTransport>([&](http::Request& r, const RecordedRequest& rec) { return reg.handle(r, rec); });
  ManualClock clock(1'700'000'000);
  RegistryClientCache cache(options_with(fake, clock));
  auto src = cache.open(DockerReference{"reg.example", "team/src", {}, {}});
  auto dst = cache.open(DockerReference{"reg.example", "team/dst", {}, {}});
  ASSERT_TRUE(src && dst);
  EXPECT_EQ(cache.clients(), 1u);
  CopyOptions o;
  o.jobs = 1;
  auto r = copy_image(**src, "v1", **dst, "v1", o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->root.digest, digest);
  EXPECT_EQ(r->blobs_mounted, 4u);
  EXPECT_EQ(reg.manifests["team/dst"]["v1"], reg.manifests["team/src"]["v1"]);
  EXPECT_EQ(reg.pings, 0);
  EXPECT_EQ(reg.token_fetches, 3);

  // The no-op re-copy: two requests (GET at the source, HEAD at the
  // destination), no token fetch.
  const auto before = fake->requests.size();
  auto again = copy_image(**src, "v1", **dst, "v1", o);
  ASSERT_TRUE(again) << again.error().message();
  EXPECT_TRUE(again->already_present);
  EXPECT_EQ(fake->requests.size() - before, 2u);
  EXPECT_EQ(reg.token_fetches, 3);
}

TEST(BytePipeTest, MovesBytesInOrderThroughTheRingAndHoldsBackTheLastByte) {
  BytePipe pipe(7);  // small and odd: every write and read wraps around
  std::string input;
  for (int i = 0; i < 1000; ++i) input += static_cast<char>('a' + i % 26);
  std::string output;
  std::thread consumer([&] {
    std::byte buf[5];
    for (int guard = 0; guard < 100000; ++guard) {
      auto n = pipe.read(buf);
      ASSERT_TRUE(n);
      if (*n == 0) return;
      output.append(reinterpret_cast<const char*>(buf), *n);
    }
  });
  for (std::size_t off = 0; off < input.size(); off += 13) {
    auto part = std::string_view(input).substr(off, 13);
    ASSERT_TRUE(pipe.write(std::as_bytes(std::span(part.data(), part.size()))));
  }
  // Everything but the final byte can be consumed before finish().
  for (int i = 0; i < 2000 && output.size() + 1 < input.size(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_EQ(output.size() + 1, input.size());
  pipe.finish();
  consumer.join();
  EXPECT_EQ(output, input);
}

TEST(BytePipeTest, AFailureStopsABlockedProducer) {
  BytePipe pipe(4);
  std::thread stopper([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    pipe.fail(Error(ErrorCode::kUnavailable, "upload ended"));
  });
  std::string big(64, 'x');
  auto ok = pipe.write(std::as_bytes(std::span(big.data(), big.size())));
  stopper.join();
  ASSERT_FALSE(ok);
  EXPECT_TRUE(ok.error().is(ErrorCode::kUnavailable));
}

}  // namespace
}  // namespace strata::oci::registry
