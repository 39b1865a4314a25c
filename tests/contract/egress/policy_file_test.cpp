// Reading a policy file back (the reader `strata preflight --egress-policy`
// shares): what each format grants, and every malformed file refused with a
// message naming the file and the entry.
#include "contract/egress/policy_file.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace strata::contract::egress {
namespace {

std::string write(const strata::testing::TempDir& dir, const std::string& name, const std::string& text) {
  auto p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p.string();
}

std::string json_policy(const std::string& hosts) {
  return R"({"kind": "strata-egress-policy", "version": 1, "repo": "r", "contract_digest": "sha256:00",
             "strata_version": "0.1.0", "include": "all", "hosts": [)" +
         hosts + "]}";
}

std::string error_of(const std::string& text) {
  strata::testing::TempDir dir;
  auto r = read_policy_file(write(dir, "policy.json", text));
  EXPECT_FALSE(r.has_value());
  return r ? std::string("<read>") : r.error().message();
}

TEST(PolicyFileJson, ReadsHostsPortsAndMethods) {
  strata::testing::TempDir dir;
  auto file = write(dir, "policy.json", json_policy(R"(
    {"host": "api.github.com", "port": 443, "methods": ["GET", "HEAD"], "origin": "declared",
     "source": "declared", "reason": "release metadata", "evidence": []},
    {"host": "*.example.com", "port": 8443, "methods": ["GET", "HEAD", "OPTIONS"]},
    {"host": "tcp.example.org", "methods": []},
    {"host": "get-only.example.org", "methods": ["GET"]},
    {"host": "writer.example.org", "methods": ["POST", "PUT"]})"));
  auto r = read_policy_file(file);
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(r->format, "json");
  ASSERT_EQ(r->hosts.size(), 5u);
  EXPECT_EQ(r->hosts[0], (AllowedHost{"api.github.com", 443, {"GET", "HEAD"}}));
  EXPECT_EQ(r->hosts[1].port, 8443);
  EXPECT_EQ(r->hosts[2].port, 443);  // the default

  EXPECT_TRUE(allows_read(*r, "api.github.com"));
  EXPECT_TRUE(allows_read(*r, "API.GitHub.com", 443));  // DNS names compare case-insensitively
  EXPECT_FALSE(allows_read(*r, "api.github.com", 80));
  EXPECT_FALSE(allows_read(*r, "github.com"));
  EXPECT_TRUE(allows_read(*r, "a.example.com", 8443));
  EXPECT_FALSE(allows_read(*r, "example.com", 8443));     // the wildcard needs one more label
  EXPECT_FALSE(allows_read(*r, "a.b.example.com", 8443));
  EXPECT_TRUE(allows_read(*r, "tcp.example.org"));        // [] = every method
  EXPECT_FALSE(allows_read(*r, "get-only.example.org"));  // HEAD is refused there
  EXPECT_FALSE(allows_read(*r, "writer.example.org"));
}

TEST(PolicyFileJson, EmptyAllowlistAllowsNothing) {
  strata::testing::TempDir dir;
  auto r = read_policy_file(write(dir, "policy.json", json_policy("")));
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_TRUE(r->hosts.empty());
  EXPECT_FALSE(allows_read(*r, "registry.npmjs.org"));
}

TEST(PolicyFileJson, MalformedEntriesNameTheFileAndEntry) {
  auto has = [](const std::string& msg, const std::string& part) {
    return msg.find(part) != std::string::npos && msg.find("policy.json") != std::string::npos;
  };
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "methods": ["GET"]},
                                            {"host": "10.0.0.1", "methods": ["GET"]})")),
               "hosts[1]: host \"10.0.0.1\" is an IP literal in the private range");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "port": 0, "methods": []})")),
               "hosts[0]: port 0 is outside 1-65535");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "port": 65536, "methods": []})")),
               "hosts[0]: port 65536 is outside 1-65535");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "port": "443", "methods": []})")),
               "hosts[0] (a.example.com): port is not an integer");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "metods": ["GET"], "methods": []})")),
               "hosts[0]: unknown field \"metods\"");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com"})")),
               "hosts[0] (a.example.com): methods is missing");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "methods": ["get"]})")),
               "hosts[0]: method \"get\" is not an HTTP method");
  EXPECT_PRED2(has, error_of(json_policy(R"({"methods": []})")), "hosts[0]: host is missing");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "*", "methods": []})")), "hosts[0]: host \"*\" is a bare wildcard");
  EXPECT_PRED2(has, error_of(json_policy(R"({"host": "a.example.com", "methods": []},
                                            {"host": "a.example.com", "methods": ["GET"]})")),
               "hosts[1]: a.example.com:443 is listed twice (also hosts[0])");
  EXPECT_PRED2(has, error_of(R"({"kind": "something-else", "version": 1, "hosts": []})"),
               "not a strata egress policy");
  EXPECT_PRED2(has, error_of(R"({"kind": "strata-egress-policy", "version": 2, "hosts": []})"), "version is not 1");
  EXPECT_PRED2(has, error_of(R"({"kind": "strata-egress-policy", "version": 1, "hosts": [], "extra": 1})"),
               "unknown field \"extra\"");
  EXPECT_PRED2(has, error_of(R"({"kind": "strata-egress-policy", "version": 1})"), "hosts is missing");
  EXPECT_PRED2(has, error_of("{not json"), "not valid JSON");
  EXPECT_PRED2(has, error_of("   \n"), "empty policy file");
}

TEST(PolicyFile, SizeIsBoundedBeforeReading) {
  strata::testing::TempDir dir;
  auto file = write(dir, "policy.json", json_policy("") + std::string(kMaxPolicyFileBytes, ' '));
  auto r = read_policy_file(file);
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find("more than the limit"), std::string::npos) << r.error().message();
  EXPECT_NE(r.error().message().find("policy.json"), std::string::npos);
}

TEST(PolicyFileJson, HostCountIsBounded) {
  auto hosts = [](int n) {
    std::string s;
    for (int i = 0; i < n; ++i)
      s += std::string(i ? "," : "") + R"({"host": "h)" + std::to_string(i) + R"(.example.com", "methods": []})";
    return s;
  };
  strata::testing::TempDir dir;
  auto ok = read_policy_file(write(dir, "policy.json", json_policy(hosts(10000))));
  ASSERT_TRUE(ok.has_value()) << ok.error().message();
  EXPECT_EQ(ok->hosts.size(), 10000u);
  EXPECT_TRUE(allows_read(*ok, "h9999.example.com"));
  EXPECT_NE(error_of(json_policy(hosts(10001))).find("10001 hosts, more than the limit of 10000"), std::string::npos);
}

TEST(PolicyFile, MissingFileIsNotFound) {
  strata::testing::TempDir dir;
  auto r = read_policy_file(dir / "absent.json");
  ASSERT_FALSE(r.has_value());
  EXPECT_TRUE(r.error().is(ErrorCode::kNotFound));
  EXPECT_NE(r.error().message().find("absent.json"), std::string::npos);
}

}  // namespace
}  // namespace strata::contract::egress

namespace strata::contract::egress {
namespace {

// A policy file read back obeys the host-name rule a render does: a file
// written by hand (or by another tool) granting an internal name or a
// wildcard at a public suffix is refused, in every format.
TEST(PolicyFile, AGrantOfAnInternalNameOrAPublicSuffixWildcardIsRefused) {
  auto refused = [](const std::string& text, const std::string& what) {
    auto r = read_policy_text(text, "policy");
    ASSERT_FALSE(r.has_value()) << text;
    EXPECT_NE(r.error().message().find(what), std::string::npos) << r.error().message();
  };
  refused(R"({"kind": "strata-egress-policy", "version": 1, "hosts": [
             {"host": "metadata.google.internal", "port": 80, "methods": ["GET"]}]})",
          "host \"metadata.google.internal\" is a special-use name (the cloud metadata service of Google Cloud");
  refused("version: 1\nnetwork_policies:\n  p:\n    endpoints:\n      - host: \"*.github.io\"\n        port: 443\n",
          "host \"*.github.io\" is a wildcard at a public suffix (github.io is on the Public Suffix List)");
  refused("acl h dstdomain kubernetes.default.svc\nacl p port 443\nhttp_access allow h p\nhttp_access deny all\n",
          "host \"kubernetes.default.svc\" is a special-use name");
}

}  // namespace
}  // namespace strata::contract::egress
