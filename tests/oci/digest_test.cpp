#include "oci/digest.hpp"

#include <gtest/gtest.h>

#include "oci/blob_io.hpp"

namespace strata::oci {
namespace {

const std::string kEmpty = "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(Digest, ParsesValid) {
  auto d = Digest::parse(kEmpty);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->algorithm(), "sha256");
  EXPECT_EQ(d->hex().size(), 64u);
  EXPECT_TRUE(d->verifiable());
  EXPECT_TRUE(Digest::parse("sha512:" + std::string(128, 'a')));
  // Unknown algorithms that match the grammar pass, but are not verifiable.
  auto other = Digest::parse("multihash+base58:QmRZxt2b1FVZPNqd8hsiykDL3TdBDeTSPX9Kv46HmX4Gx8");
  ASSERT_TRUE(other);
  EXPECT_FALSE(other->verifiable());
}

TEST(Digest, RejectsInvalid) {
  for (std::string bad : {
           std::string(""), std::string("sha256"), std::string("sha256:"), std::string(":abc"),
           "sha256:" + std::string(63, 'a'), "sha256:" + std::string(65, 'a'),
           "sha256:" + std::string(64, 'A'),  // uppercase is forbidden
           "sha256:" + std::string(63, 'a') + "g", "sha512:" + std::string(64, 'a'),
           std::string("SHA256:abc"), std::string("sha256+:abc"), std::string("sha256:ab/../cd"),
           std::string("sha256:abc def"), "sha256:" + std::string(2000, 'a')}) {
    auto d = Digest::parse(bad);
    EXPECT_FALSE(d) << bad;
    if (!d) {
      EXPECT_TRUE(d.error().is(ErrorCode::kInvalidArgument));
      EXPECT_NE(d.error().message().find("invalid digest"), std::string::npos);
    }
  }
}

TEST(Digest, VerifierChecksSizeThenDigest) {
  auto d = Digest::sha256_of("hello");
  {
    DigestVerifier v(d, 5);
    ASSERT_TRUE(v.update(as_bytes("hello")));
    EXPECT_TRUE(v.verify("blob"));
  }
  {
    DigestVerifier v(d, 5);
    ASSERT_TRUE(v.update(as_bytes("hellO")));
    auto r = v.verify("blob x");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("digest mismatch"), std::string::npos);
    EXPECT_NE(r.error().message().find("blob x"), std::string::npos);
  }
  {
    DigestVerifier v(d, 5);
    EXPECT_FALSE(v.update(as_bytes("hello!")));  // too long, caught as it arrives
  }
  {
    DigestVerifier v(d, 5);
    ASSERT_TRUE(v.update(as_bytes("hell")));
    auto r = v.verify("blob");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("size mismatch"), std::string::npos);
  }
}

}  // namespace
}  // namespace strata::oci
