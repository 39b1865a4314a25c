// The host-name rule of egress grants: names pass, everything a hostile or
// careless declaration could smuggle in is refused with its reason.
#include "contract/model/host_name.hpp"

#include <gtest/gtest.h>

#include "contract/model/public_suffix.hpp"

namespace strata::contract {
namespace {

std::string problem(std::string_view h, bool wildcard = true) {
  auto p = host_name_problem(h, wildcard);
  return p ? *p : "ok";
}

TEST(HostName, ExactNamesPass) {
  EXPECT_EQ(problem("registry.npmjs.org"), "ok");
  EXPECT_EQ(problem("a-b.c0.example.com"), "ok");
  EXPECT_EQ(problem("xn--bcher-kva.example.com"), "ok");
  EXPECT_EQ(problem("octocat.github.io"), "ok");
  EXPECT_EQ(problem("bbc.co.uk"), "ok");
  EXPECT_EQ(problem(std::string(63, 'a') + ".com"), "ok");
}

TEST(HostName, MalformedNamesAreRefusedWithTheirReason) {
  EXPECT_EQ(problem(""), "is empty");
  EXPECT_NE(problem("registry").find("single label"), std::string::npos);
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

// Names that lead to the sandbox's own machine, its cluster, the cloud's
// metadata service or nowhere in the public DNS are refused whatever their
// spelling, naming the rule.
TEST(HostName, SpecialUseAndInternalNamesAreRefusedNamingTheRule) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"localhost", "RFC 6761: localhost"},
      {"*.localhost", "RFC 6761: localhost"},
      {"app.localhost", "RFC 6761: localhost"},
      {"printer.local", "RFC 6762"},
      {"metadata.google.internal", "cloud metadata service of Google Cloud"},
      {"instance-data.ec2.internal", "cloud metadata service of AWS"},
      {"db.corp.internal", ".internal for private networks"},
      {"kubernetes.default.svc.cluster.local", "Kubernetes cluster DNS"},
      {"*.svc.cluster.local", "Kubernetes cluster DNS"},
      {"*.pod.cluster.local", "Kubernetes cluster DNS"},
      {"kubernetes.default.svc", "Kubernetes service names"},
      {"redis.prod.svc", "Kubernetes service names"},
      {"kubernetes.default", "Kubernetes API server"},
      {"kubernetes", "Kubernetes API server"},
      {"metadata", "cloud metadata service"},
      {"instance-data", "cloud metadata service of AWS"},
      {"host.docker.internal", "Docker's name for the host machine"},
      {"gateway.docker.internal", "Docker's name for the host's gateway"},
      {"host.containers.internal", "Podman's name for the host machine"},
      {"router.localdomain", "local machine"},
      {"nas.home.arpa", "RFC 8375"},
      {"1.0.0.10.in-addr.arpa", "RFC 3172"},
      {"ip6.arpa", "RFC 3172"},
      {"api.test", "RFC 6761: reserved for testing"},
      {"www.example", "RFC 6761: reserved for documentation"},
      {"x.invalid", "RFC 6761: never resolves"},
      {"duckduckgogg42xjoc72x3sjasowoarfbgcmvfimaftt6twagswzczad.onion", "RFC 7686"},
      {"thing.alt", "RFC 9476"},
      {"git.lan", "RFC 6762 appendix G"},
      {"*.corp", "RFC 6762 appendix G"},
  };
  for (const auto& [host, rule] : cases) {
    std::string p = problem(host);
    EXPECT_NE(p.find("is a special-use name (" ), std::string::npos) << host << ": " << p;
    EXPECT_NE(p.find(rule), std::string::npos) << host << ": " << p;
    EXPECT_NE(p.find("declare the public name"), std::string::npos) << host << ": " << p;
  }
}

TEST(HostName, NamesThatResolveToAnAddressWrittenInThemAreRefused) {
  for (const char* host : {"169.254.169.254.nip.io", "1.1.1.1.nip.io", "nip.io", "*.nip.io", "10-0-0-1.sslip.io",
                           "www.sslip.io", "x.xip.io", "app.traefik.me", "readme.localtest.me", "lvh.me", "x.vcap.me"}) {
    std::string p = problem(host);
    EXPECT_NE(p.find("a service that resolves a name to any address written in it"), std::string::npos) << host << ": " << p;
  }
  for (const char* host : {"169.254.169.254.example.com", "10.0.0.1.example.com", "ip-10-0-0-1.example.com",
                           "10-0-0-1.example.com", "ec2-54-1-2-3.compute-1.amazonaws.com", "*.10.0.0.1.example.com"}) {
    std::string p = problem(host);
    EXPECT_NE(p.find("has an IPv4 address written into it"), std::string::npos) << host << ": " << p;
  }
  // Numbers that are not four octets are names.
  for (const char* host : {"build-2024-01-02-03.example.com", "v1-2-3.example.com", "1-2-3-256.example.com",
                           "1.2.3.example.com", "cdn-1-2.example.com"})
    EXPECT_EQ(problem(host), "ok") << host;
}

TEST(HostName, ALastLabelThatIsNoTopLevelDomainIsRefused) {
  std::string p = problem("registry.npm.notatld");
  EXPECT_NE(p.find("ends in \".notatld\", not a top-level domain on the Public Suffix List"), std::string::npos) << p;
  EXPECT_NE(problem("*.cluster.notatld").find("not a top-level domain"), std::string::npos);
  // IDN top-level domains are on the list in their Unicode form; hosts reach the rule as xn--.
  EXPECT_EQ(problem("www.xn--fiqs8s"), "ok");  // 中国
}

TEST(HostName, WildcardsAtOrAboveAPublicSuffixAreRefused) {
  for (const char* host : {"*.co.uk", "*.github.io", "*.s3.amazonaws.com", "*.xn--55qx5d.cn" /* 公司.cn */,
                           "*.foo.ck" /* *.ck */}) {
    std::string p = problem(host);
    EXPECT_NE(p.find("is a wildcard at a public suffix ("), std::string::npos) << host << ": " << p;
    EXPECT_NE(p.find(" is on the Public Suffix List)"), std::string::npos) << host << ": " << p;
    EXPECT_NE(p.find("list the hosts under it"), std::string::npos) << host << ": " << p;
  }
  EXPECT_NE(problem("*.github.io").find("(github.io is on the Public Suffix List)"), std::string::npos);
  // Above one: amazonaws.com is no public suffix, but s3.amazonaws.com under it is.
  for (const char* host : {"*.amazonaws.com", "*.kawasaki.jp" /* *.kawasaki.jp */})
    EXPECT_NE(problem(host).find("is a wildcard above a public suffix"), std::string::npos) << problem(host);
  EXPECT_NE(problem("*.uk").find("wildcard over a top-level domain"), std::string::npos);
  // A wildcard under a registered name is fine: one extra label of someone's own domain.
  for (const char* host : {"*.example.co.uk", "*.octocat.github.io", "*.docs.example.org", "*.www.ck" /* !www.ck */})
    EXPECT_EQ(problem(host), "ok") << host;
}

TEST(HostName, APublicSuffixIsNotAHost) {
  for (const char* host : {"co.uk", "github.io", "foo.ck", "xn--55qx5d.cn"}) {
    std::string p = problem(host);
    EXPECT_NE(p.find("is a public suffix ("), std::string::npos) << host << ": " << p;
  }
  EXPECT_EQ(problem("www.ck"), "ok");  // the exception rule !www.ck: a registered name
}

// The list's own algorithm: the longest matching rule, "*" rules, "!"
// exceptions winning, "*" (the last label) when nothing matches.
TEST(PublicSuffix, TheListsAlgorithm) {
  EXPECT_EQ(public_suffix("www.example.co.uk"), "co.uk");
  EXPECT_EQ(public_suffix("octocat.github.io"), "github.io");
  EXPECT_EQ(public_suffix("a.b.ck"), "b.ck");
  EXPECT_EQ(public_suffix("www.ck"), "ck");
  EXPECT_EQ(public_suffix("a.www.ck"), "ck");
  EXPECT_EQ(public_suffix("a.b.kawasaki.jp"), "b.kawasaki.jp");
  EXPECT_EQ(public_suffix("a.city.kawasaki.jp"), "kawasaki.jp");
  EXPECT_EQ(public_suffix("x.notatld"), "notatld");
  EXPECT_EQ(public_suffix("shop.xn--55qx5d.cn"), "xn--55qx5d.cn");
  EXPECT_TRUE(is_listed_tld("com"));
  EXPECT_TRUE(is_listed_tld("bd"));  // only "*.bd" names it
  EXPECT_FALSE(is_listed_tld("internal"));
  EXPECT_NE(public_suffix_list_as_of().find("sha256:"), std::string_view::npos) << public_suffix_list_as_of();
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
