// Golden outputs: every format for the fixture repositories, byte for byte
// (testdata/egress/). Regenerate after a reviewed change with
// STRATA_UPDATE_GOLDEN=1 and read the diff.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "egress_test_support.hpp"

namespace strata::contract::egress::testing {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void expect_golden(const RenderRequest& r, const std::string& golden) {
  auto path = strata::testing::source_dir() / "testdata" / "egress" / golden;
  std::string got = rendered(r);
  if (const char* u = std::getenv("STRATA_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << got;
  }
  ASSERT_TRUE(std::filesystem::exists(path)) << path << " is missing; run with STRATA_UPDATE_GOLDEN=1";
  EXPECT_EQ(got, slurp(path)) << "differs from " << path;
}

struct Case {
  std::string repo, format, golden;
  Include include = Include::kAll;
  SquidTls tls = SquidTls::kConnect;
};

class Golden : public ::testing::TestWithParam<Case> {};

TEST_P(Golden, MatchesTheReviewedOutput) {
  const Case& c = GetParam();
  RenderRequest r = request(c.repo, c.format);
  r.include = c.include;
  r.tls = c.tls;
  if (c.format == "cilium") r.cilium.selector = {{"app.kubernetes.io/name", "sandbox"}};
  expect_golden(r, c.golden);
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, Golden,
    ::testing::Values(Case{"egress-declared", "json", "egress-declared.json"},
                      Case{"egress-declared", "openshell", "egress-declared.openshell.yaml"},
                      Case{"egress-declared", "cilium", "egress-declared.cilium.yaml"},
                      Case{"egress-declared", "squid", "egress-declared.squid-connect.conf"},
                      Case{"egress-declared", "squid", "egress-declared.squid-bump.conf", Include::kAll, SquidTls::kBump},
                      Case{"egress-declared", "openshell", "egress-declared.declared.openshell.yaml", Include::kDeclared},
                      Case{"egress-declared", "json", "egress-declared.inferred.json", Include::kInferred},
                      Case{"node-yarn-classic", "openshell", "node-yarn-classic.openshell.yaml"},
                      Case{"python-django-psycopg2", "squid", "python-django-psycopg2.squid-connect.conf"},
                      Case{"go-cgo", "cilium", "go-cgo.cilium.yaml"},
                      Case{"cmake-native", "json", "cmake-native.json"},
                      Case{"ruby-rails-mysql2", "openshell", "ruby-rails-mysql2.openshell.yaml"},
                      Case{"php-laravel", "squid", "php-laravel.squid-connect.conf"},
                      Case{"jvm-maven-spring", "openshell", "jvm-maven-spring.openshell.yaml"},
                      Case{"jvm-gradle-kotlin", "squid", "jvm-gradle-kotlin.squid-connect.conf"},
                      Case{"elixir-phoenix-nifs", "cilium", "elixir-phoenix-nifs.cilium.yaml"},
                      Case{"dotnet-webapi", "json", "dotnet-webapi.json"}),
    [](const ::testing::TestParamInfo<Case>& i) {
      std::string n = i.param.golden;
      for (char& ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

TEST(GoldenProperties, OutputIsDeterministicAndSorted) {
  auto a = rendered(request("egress-declared", "json"));
  EXPECT_EQ(a, rendered(request("egress-declared", "json")));
  auto doc = nlohmann::json::parse(a);
  std::vector<std::string> hosts;
  for (const auto& h : doc["hosts"]) hosts.push_back(h["host"].get<std::string>() + ":" + std::to_string(h["port"].get<int>()));
  EXPECT_TRUE(std::is_sorted(hosts.begin(), hosts.end()));
  EXPECT_EQ(doc["repo"], "testdata/repos/egress-declared");
  EXPECT_EQ(doc["strata_version"], kTestVersion);
  EXPECT_TRUE(doc["contract_digest"].get<std::string>().starts_with("sha256:"));
}

TEST(GoldenProperties, EveryFormatCarriesTheHeader) {
  auto json = nlohmann::json::parse(rendered(request("egress-declared", "json")));
  std::string digest = json["contract_digest"];
  for (const char* f : {"openshell", "cilium", "squid"}) {
    auto text = rendered(request("egress-declared", f));
    EXPECT_NE(text.find("# repo: testdata/repos/egress-declared\n"), std::string::npos) << f;
    EXPECT_NE(text.find("# contract: " + digest + "\n"), std::string::npos) << f;
    EXPECT_NE(text.find(std::string("# strata: ") + kTestVersion + "\n"), std::string::npos) << f;
  }
}

}  // namespace
}  // namespace strata::contract::egress::testing
