// The host-name rule of egress grants: names pass, everything a hostile or
// careless declaration could smuggle in is refused with its reason.
#include "contract/host_name.hpp"

#include <gtest/gtest.h>

namespace strata::contract {
namespace {

std::string problem(std::string_view h, bool wildcard = true) {
  auto p = host_name_problem(h, wildcard);
  return p ? *p : "ok";
}

TEST(HostName, ExactNamesPass) {
  EXPECT_EQ(problem("registry.npmjs.org"), "ok");
  EXPECT_EQ(problem("a-b.c0.example"), "ok");
  EXPECT_EQ(problem("xn--bcher-kva.example"), "ok");
  EXPECT_EQ(problem(std::string(63, 'a') + ".com"), "ok");
}

TEST(HostName, MalformedNamesAreRefusedWithTheirReason) {
  EXPECT_EQ(problem(""), "is empty");
  EXPECT_NE(problem("localhost").find("single label"), std::string::npos);
  EXPECT_NE(problem("a..b").find("empty label"), std::string::npos);
  EXPECT_NE(problem(".example.com").find("empty label"), std::string::npos);
  EXPECT_NE(problem("example.com.").find("ends with a dot"), std::string::npos);
  EXPECT_NE(problem("-a.example.com").find("starts or ends with '-'"), std::string::npos);
  EXPECT_NE(problem("Example.com").find("lower case"), std::string::npos);
  EXPECT_NE(problem("a_b.example.com").find("character"), std::string::npos);
  EXPECT_NE(problem("a b.example.com").find("character"), std::string::npos);
  EXPECT_NE(problem("evil.com\nhttp_access allow all").find("character"), std::string::npos);
  EXPECT_NE(problem("example.com:8080").find("port separately"), std::string::npos);
  EXPECT_NE(problem(std::string(64, 'a') + ".com").find("longer than 63"), std::string::npos);
  EXPECT_NE(problem(std::string(250, 'a') + ".com").find("longer than 253"), std::string::npos);
  EXPECT_NE(problem("host.123").find("all-numeric"), std::string::npos);
}

TEST(HostName, IpLiteralsAreRefusedAndPrivateRangesSaySo) {
  EXPECT_NE(problem("10.1.2.3").find("private range 10.0.0.0/8"), std::string::npos);
  EXPECT_NE(problem("172.20.0.1").find("172.16.0.0/12"), std::string::npos);
  EXPECT_NE(problem("192.168.1.1").find("192.168.0.0/16"), std::string::npos);
  EXPECT_NE(problem("127.0.0.1").find("loopback"), std::string::npos);
  EXPECT_NE(problem("169.254.169.254").find("link-local"), std::string::npos);
  EXPECT_NE(problem("[::1]").find("loopback"), std::string::npos);
  EXPECT_NE(problem("fd00::1").find("fc00::/7"), std::string::npos);
  EXPECT_NE(problem("::ffff:10.0.0.1").find("IPv4-mapped"), std::string::npos);
  EXPECT_NE(problem("8.8.8.8").find("IP literal; egress is granted to host names"), std::string::npos);
  EXPECT_EQ(problem("172.32.0.1").find("private"), std::string::npos);  // just outside 172.16/12
}

TEST(HostName, WildcardsOnlyAsAWholeFirstLabel) {
  EXPECT_EQ(problem("*.example.com"), "ok");
  EXPECT_NE(problem("*.example.com", false).find("only exact host names"), std::string::npos);
  EXPECT_NE(problem("*").find("bare wildcard"), std::string::npos);
  EXPECT_NE(problem("*.com").find("top-level domain"), std::string::npos);
  EXPECT_NE(problem("a*.example.com").find("whole first label"), std::string::npos);
  EXPECT_NE(problem("a.*.example.com").find("whole first label"), std::string::npos);
  EXPECT_NE(problem("**.example.com").find("whole first label"), std::string::npos);
}

TEST(HostName, WildcardMatchesExactlyOneExtraLabel) {
  EXPECT_TRUE(host_matches("*.example.com", "a.example.com"));
  EXPECT_FALSE(host_matches("*.example.com", "example.com"));
  EXPECT_FALSE(host_matches("*.example.com", "a.b.example.com"));
  EXPECT_FALSE(host_matches("*.example.com", "aexample.com"));
  EXPECT_TRUE(host_matches("example.com", "example.com"));
  EXPECT_FALSE(host_matches("example.com", "a.example.com"));
}

}  // namespace
}  // namespace strata::contract
