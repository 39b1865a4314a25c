#include "oci/registry/challenge.hpp"

#include <gtest/gtest.h>

namespace strata::oci::registry {
namespace {

TEST(ChallengeTest, ParsesBearerWithQuotedParams) {
  auto cs = parse_challenges(
      R"(Bearer realm="https://auth.example/token",service="registry.example",scope="repository:a/b:pull,push",error="insufficient_scope")");
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].scheme, "bearer");
  EXPECT_EQ(cs[0].param("realm"), "https://auth.example/token");
  EXPECT_EQ(cs[0].param("service"), "registry.example");
  EXPECT_EQ(cs[0].param("scope"), "repository:a/b:pull,push");
  EXPECT_EQ(cs[0].param("error"), "insufficient_scope");
}

TEST(ChallengeTest, ParsesSeveralChallengesInOneHeader) {
  auto cs = parse_challenges(R"(Negotiate, Basic realm="r1", Bearer realm="x\"y", service=svc)");
  ASSERT_EQ(cs.size(), 3u);
  EXPECT_EQ(cs[0].scheme, "negotiate");
  EXPECT_EQ(cs[1].scheme, "basic");
  EXPECT_EQ(cs[1].param("realm"), "r1");
  EXPECT_EQ(cs[2].param("realm"), "x\"y");
  EXPECT_EQ(cs[2].param("service"), "svc");
}

TEST(ChallengeTest, PicksBearerOverBasicAcrossHeaders) {
  auto c = pick_challenge({R"(Basic realm="b")", R"(Bearer realm="https://t/x",scope="s1 s2")"});
  ASSERT_TRUE(c);
  EXPECT_EQ(c->scheme, "bearer");
  EXPECT_EQ(challenge_scopes(*c), (std::vector<std::string>{"s1", "s2"}));
  EXPECT_FALSE(pick_challenge({"Negotiate abc=="}));
  EXPECT_TRUE(parse_challenges("").empty());
}

}  // namespace
}  // namespace strata::oci::registry
