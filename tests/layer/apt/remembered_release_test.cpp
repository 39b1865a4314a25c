// The InRelease remembered per dist URL: what it keeps, when it is fresh,
// and the conditional GET that revalidates it (a 304 keeps the bytes).
#include "layer/apt/remembered_release.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"
#include "util/fs.hpp"

namespace strata::layer {
namespace {

const std::string kDist = "http://deb.example/debian/dists/bookworm";

// Answers one scripted response and keeps the request it saw.
class OneAnswer : public oci::http::Transport {
 public:
  explicit OneAnswer(int status, std::string body = "", oci::http::Headers headers = {})
      : status_(status), body_(std::move(body)), headers_(std::move(headers)) {}
  Result<oci::http::Response> send(oci::http::Request& req) override {
    seen = req.headers;
    url = req.url;
    oci::http::Response r;
    r.status = status_;
    r.headers = headers_;
    if (status_ >= 200 && status_ < 300 && req.sink) {
      STRATA_TRY_VOID(req.sink->write(std::as_bytes(std::span(body_.data(), body_.size()))));
    }
    return r;
  }
  oci::http::Headers seen;
  std::string url;

 private:
  int status_;
  std::string body_;
  oci::http::Headers headers_;
};

TEST(RememberedRelease, RoundTripsAndReadsTheFirstFormAsNeverConfirmed) {
  testing::TempDir home;
  EXPECT_FALSE(read_remembered_release(home.path(), kDist, 1 << 20));
  RememberedRelease r{"-----BEGIN PGP SIGNED MESSAGE-----\n\nSuite: x\n", 1700000000, "\"abc\"",
                      "Sat, 10 Jun 2023 09:21:43 GMT"};
  remember_release(home.path(), kDist, r);
  auto back = read_remembered_release(home.path(), kDist, 1 << 20);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->bytes, r.bytes);
  EXPECT_EQ(back->checked, r.checked);
  EXPECT_EQ(back->etag, r.etag);
  EXPECT_EQ(back->last_modified, r.last_modified);
  // Another URL hashed to this file (or an edited one) is not this URL's.
  EXPECT_FALSE(read_remembered_release(home.path(), kDist + "-updates", 1 << 20));
  // The form strata wrote before: the URL, then the bytes.
  ASSERT_TRUE(fs::write_file_atomic(remembered_release_path(home.path(), kDist), kDist + "\n" + r.bytes));
  back = read_remembered_release(home.path(), kDist, 1 << 20);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->bytes, r.bytes);
  EXPECT_EQ(back->checked, 0);
  EXPECT_FALSE(is_fresh(*back, 1700000000, 3600));
  // A header that does not end is damage.
  ASSERT_TRUE(fs::write_file_atomic(remembered_release_path(home.path(), kDist),
                                    kDist + "\n#strata-remembered 2\nchecked 5\n"));
  EXPECT_FALSE(read_remembered_release(home.path(), kDist, 1 << 20));
}

TEST(RememberedRelease, FreshOnlyWithinTheWindowAndNeverAtZero) {
  RememberedRelease r{"x", 1000, "", ""};
  EXPECT_TRUE(is_fresh(r, 1000, 300));
  EXPECT_TRUE(is_fresh(r, 1299, 300));
  EXPECT_FALSE(is_fresh(r, 1300, 300));
  EXPECT_FALSE(is_fresh(r, 1000, 0));
  EXPECT_FALSE(is_fresh(r, 999, 300));  // confirmed "in the future": the clock moved back
}

TEST(RememberedRelease, RevalidatesConditionallyAndKeepsTheBytesOn304) {
  RememberedRelease known{"old bytes", 10, "\"v1\"", "Sat, 10 Jun 2023 09:21:43 GMT"};
  OneAnswer not_modified(304);
  auto same = fetch_release(not_modified, kDist + "/InRelease", &known, 1 << 20, 500);
  ASSERT_TRUE(same) << same.error().message();
  ASSERT_TRUE(*same);
  EXPECT_EQ(not_modified.seen.get("If-None-Match"), "\"v1\"");
  EXPECT_EQ(not_modified.seen.get("If-Modified-Since"), known.last_modified);
  EXPECT_EQ((*same)->bytes, "old bytes");
  EXPECT_EQ((*same)->checked, 500);
  EXPECT_EQ((*same)->etag, "\"v1\"");

  oci::http::Headers h;
  h.set("ETag", "\"v2\"");
  OneAnswer changed(200, "new bytes", h);
  auto fresh = fetch_release(changed, kDist + "/InRelease", &known, 1 << 20, 600);
  ASSERT_TRUE(fresh && *fresh);
  EXPECT_EQ((*fresh)->bytes, "new bytes");
  EXPECT_EQ((*fresh)->etag, "\"v2\"");
  EXPECT_EQ((*fresh)->last_modified, "");

  OneAnswer first(200, "first");
  auto got = fetch_release(first, kDist + "/InRelease", nullptr, 1 << 20, 700);
  ASSERT_TRUE(got && *got);
  EXPECT_FALSE(first.seen.get("If-None-Match"));
  EXPECT_FALSE(first.seen.get("If-Modified-Since"));

  OneAnswer missing(404);
  auto none = fetch_release(missing, kDist + "/InRelease", &known, 1 << 20, 800);
  ASSERT_TRUE(none);
  EXPECT_FALSE(*none);
  OneAnswer unasked(304);
  EXPECT_FALSE(fetch_release(unasked, kDist + "/InRelease", nullptr, 1 << 20, 800));
  OneAnswer down(503);
  auto err = fetch_release(down, kDist + "/InRelease", &known, 1 << 20, 800);
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().message().find("HTTP 503"), std::string::npos);
}

}  // namespace
}  // namespace strata::layer
