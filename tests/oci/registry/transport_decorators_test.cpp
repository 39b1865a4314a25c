#include <gtest/gtest.h>

#include <map>

#include "oci/http/redirect_transport.hpp"
#include "oci/http/retry_transport.hpp"
#include "oci/http/url.hpp"
#include "oci/registry/fake_transport.hpp"

namespace strata::oci::http {
namespace {

using testing::FakeTransport;
using testing::RecordedRequest;

RetryPolicy fast_policy(int attempts) {
  RetryPolicy p;
  p.max_attempts = attempts;
  p.initial_backoff = std::chrono::milliseconds(1000);
  p.jitter = 0;
  return p;
}

TEST(RetryTransportTest, HonoursRetryAfterSecondsWithoutSleeping) {
  int calls = 0;
  auto fake = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) {
    return ++calls == 1 ? FakeTransport::respond(r, 429, "", {{"Retry-After", "7"}}) : FakeTransport::respond(r, 200, "ok");
  });
  ManualClock clock(1'000'000);
  RetryTransport retry(fake, fast_policy(3), clock);
  Request req;
  req.url = "https://reg.example/v2/";
  auto resp = retry.send(req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(clock.total_slept(), std::chrono::seconds(7));
}

TEST(RetryTransportTest, ParsesHttpDateRetryAfter) {
  // 1994-11-06T08:49:37Z = 784111777
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 - 30), 30);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", 784111777 + 30), 0);
  EXPECT_EQ(parse_retry_after("12", 0), 12);
  EXPECT_FALSE(parse_retry_after("soon", 0));
}

TEST(RetryTransportTest, StopsAfterMaxAttemptsWithBackoff) {
  int calls = 0;
  auto fake = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) {
    ++calls;
    return FakeTransport::respond(r, 503, R"({"errors":[{"code":"UNAVAILABLE"}]})");
  });
  ManualClock clock(0);
  RetryTransport retry(fake, fast_policy(4), clock);
  Request req;
  req.url = "https://reg.example/v2/x";
  auto resp = retry.send(req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 503);
  EXPECT_EQ(calls, 4);
  EXPECT_EQ(clock.total_slept(), std::chrono::milliseconds(1000 + 2000 + 4000));
}

TEST(RetryTransportTest, RetriesConnectionErrorsButNotNonRewindableBodies) {
  int calls = 0;
  auto fake = std::make_shared<FakeTransport>([&](Request&, const RecordedRequest&) -> Result<Response> {
    ++calls;
    return fail(ErrorCode::kUnavailable, "connection reset");
  });
  ManualClock clock(0);
  RetryTransport retry(fake, fast_policy(3), clock);
  Request get;
  get.url = "https://reg.example/v2/x";
  EXPECT_FALSE(retry.send(get));
  EXPECT_EQ(calls, 3);

  calls = 0;
  BodySource once = body_from_string(std::make_shared<const std::string>("data"));
  once.rewind = nullptr;
  Request put;
  put.method = "PUT";
  put.url = "https://reg.example/v2/x";
  put.body = &once;
  EXPECT_FALSE(retry.send(put));
  EXPECT_EQ(calls, 1);
}

// A host that does not resolve, a port that refuses, a peer that does not
// speak TLS: another try fails alike, so the first failure is the answer
// (an unreachable mirror once cost minutes of backoff per .deb).
TEST(RetryTransportTest, DoesNotRetryAPeerThatCannotBeReached) {
  int calls = 0;
  auto fake = std::make_shared<FakeTransport>([&](Request&, const RecordedRequest&) -> Result<Response> {
    ++calls;
    return fail(ErrorCode::kUnreachable, "Could not resolve host: mirror.invalid");
  });
  ManualClock clock(0);
  RetryTransport retry(fake, fast_policy(5), clock);
  Request get;
  get.url = "https://mirror.invalid/pool/a.deb";
  auto r = retry.send(get);
  ASSERT_FALSE(r);
  EXPECT_TRUE(r.error().is(ErrorCode::kUnreachable));
  EXPECT_EQ(r.error().message(), "Could not resolve host: mirror.invalid");
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(clock.total_slept(), std::chrono::milliseconds(0));
}

TEST(RetryTransportTest, DoesNotRetryAfterBodyBytesReachedTheSink) {
  int calls = 0;
  auto fake = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) -> Result<Response> {
    ++calls;
    auto part = FakeTransport::respond(r, 200, "half");
    return fail(ErrorCode::kUnavailable, "connection reset mid-body");
  });
  ManualClock clock(0);
  RetryTransport retry(fake, fast_policy(5), clock);
  StringSink sink;
  Request req;
  req.url = "https://reg.example/v2/x/blobs/sha256:1";
  req.sink = &sink;
  EXPECT_FALSE(retry.send(req));
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(sink.str(), "half");
}

// The timeout budget is the host's, not each request's: after two exchanges
// in a row time out without an answer, the next request to that host (a
// push's next HEAD, POST, PUT or DELETE) fails at once, naming the host and
// saying it did not answer; another host is not affected, and an exchange
// that starts a body, or answers at all, gives the host its budget back.
TEST(RetryTransportTest, TheTimeoutBudgetIsTheHostsNotEachRequests) {
  std::map<std::string, int> calls;
  bool stalled = true;
  auto fake = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) -> Result<Response> {
    auto host = parse_url(r.url)->authority;
    ++calls[host];
    if (host == "silent.example:5000" && stalled)
      return fail(ErrorCode::kDeadlineExceeded, "PUT " + r.url + ": Operation timed out");
    return FakeTransport::respond(r, 201, "");
  });
  ManualClock clock(0);
  RetryTransport retry(fake, fast_policy(5), clock);
  auto send = [&](const std::string& method, const std::string& url) {
    Request req;
    req.method = method;
    req.url = url;
    return retry.send(req);
  };
  auto head = send("HEAD", "https://silent.example:5000/v2/a/blobs/sha256:1");
  ASSERT_FALSE(head);
  EXPECT_EQ(calls["silent.example:5000"], 2) << "a timed-out exchange is tried twice";
  for (const std::string method : {"POST", "PUT", "DELETE"}) {
    auto next = send(method, "https://silent.example:5000/v2/a/blobs/uploads/");
    ASSERT_FALSE(next) << method;
    EXPECT_TRUE(next.error().is(ErrorCode::kDeadlineExceeded)) << next.error().message();
    EXPECT_NE(next.error().message().find("silent.example:5000 did not answer"), std::string::npos)
        << next.error().message();
  }
  EXPECT_EQ(calls["silent.example:5000"], 2) << "the spent budget is not paid again";
  ASSERT_TRUE(send("GET", "https://other.example/v2/"));
  EXPECT_EQ(calls["other.example"], 1);

  // An answer gives the budget back.
  ManualClock clock2(0);
  int n = 0;
  auto flaky = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) -> Result<Response> {
    if (++n % 2 == 1) return fail(ErrorCode::kDeadlineExceeded, "timed out");
    return FakeTransport::respond(r, 200, "");
  });
  RetryTransport recovering(flaky, fast_policy(5), clock2);
  for (int i = 0; i < 4; ++i) {
    Request req;
    req.url = "https://slow.example/v2/x";
    auto r = recovering.send(req);
    ASSERT_TRUE(r) << "request " << i << ": " << r.error().message();
  }
  EXPECT_EQ(n, 8);
}

TEST(RedirectTransportTest, DropsAuthorizationWhenTheHostChanges) {
  auto fake = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) {
    if (r.url.starts_with("https://reg.example/"))
      return FakeTransport::respond(r, 307, "", {{"Location", "https://cdn.example/blob?sig=1"}});
    return FakeTransport::respond(r, 200, "bytes");
  });
  RedirectTransport redirect(fake);
  Request req;
  req.url = "https://reg.example/v2/x/blobs/sha256:1";
  req.follow_redirects = true;
  req.headers.set("Authorization", "Bearer secret");
  auto resp = redirect.send(req);
  ASSERT_TRUE(resp);
  EXPECT_EQ(resp->status, 200);
  EXPECT_EQ(resp->body, "bytes");
  EXPECT_EQ(resp->effective_url, "https://cdn.example/blob?sig=1");
  ASSERT_EQ(fake->requests.size(), 2u);
  EXPECT_TRUE(fake->requests[0].headers.get("Authorization"));
  EXPECT_FALSE(fake->requests[1].headers.get("Authorization"));
}

TEST(RedirectTransportTest, KeepsAuthorizationOnTheSameOriginAndDropsItOnPortOrSchemeChange) {
  auto fake = std::make_shared<FakeTransport>([&](Request& r, const RecordedRequest&) {
    if (r.url.ends_with("/a")) return FakeTransport::respond(r, 302, "", {{"Location", "/b"}});
    if (r.url.ends_with("/b")) return FakeTransport::respond(r, 308, "", {{"Location", "http://reg.example/c"}});
    if (r.url.ends_with("/c")) return FakeTransport::respond(r, 301, "", {{"Location", "https://reg.example/d"}});
    return FakeTransport::respond(r, 200, "done");
  });
  RedirectTransport redirect(fake);
  Request req;
  req.url = "https://reg.example/a";
  req.follow_redirects = true;
  req.headers.set("Authorization", "Basic secret");
  auto resp = redirect.send(req);
  ASSERT_TRUE(resp);
  ASSERT_EQ(fake->requests.size(), 4u);
  EXPECT_TRUE(fake->requests[1].headers.get("Authorization"));   // /b same origin
  EXPECT_FALSE(fake->requests[2].headers.get("Authorization"));  // http: scheme changed
  EXPECT_FALSE(fake->requests[3].headers.get("Authorization"));  // never restored
}

TEST(RedirectTransportTest, LimitsHops) {
  auto fake = std::make_shared<FakeTransport>(
      [&](Request& r, const RecordedRequest&) { return FakeTransport::respond(r, 302, "", {{"Location", "/loop"}}); });
  RedirectTransport redirect(fake, 3);
  Request req;
  req.url = "https://reg.example/loop";
  req.follow_redirects = true;
  auto resp = redirect.send(req);
  ASSERT_FALSE(resp);
  EXPECT_NE(resp.error().message().find("more than 3 redirects"), std::string::npos);
}

TEST(UrlTest, ResolvesRelativeReferences) {
  EXPECT_EQ(*resolve_url("http://h:5/v2/x/tags/list?n=1", "/v2/x/tags/list?last=a"), "http://h:5/v2/x/tags/list?last=a");
  EXPECT_EQ(*resolve_url("http://h:5/v2/x/blobs/uploads/", "abc?_state=1"), "http://h:5/v2/x/blobs/uploads/abc?_state=1");
  EXPECT_EQ(*resolve_url("https://h/v2/", "https://other:8443/p"), "https://other:8443/p");
  EXPECT_TRUE(same_origin("https://h/a", "https://h:443/b"));
  EXPECT_FALSE(same_origin("https://h/a", "https://h:444/b"));
  EXPECT_EQ(append_query("http://h/u?_state=x", "digest", "sha256:ab"), "http://h/u?_state=x&digest=sha256%3Aab");
}

}  // namespace
}  // namespace strata::oci::http
