// strata egress render through the binary: options in any order, exit codes
// (2 for usage, 1 for a declaration that cannot be granted), --output
// written atomically, --json for machines, --contract from a scan.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "support/cli_test.hpp"

namespace strata::testing {
namespace {

class EgressCli : public CliTest {
 protected:
  std::string repo(const std::string& name) { return (source_dir() / "testdata/repos" / name).string(); }
};

TEST_F(EgressCli, RendersEachFormatWithOptionsAnywhere) {
  auto a = strata({"egress", "render", "--format", "squid", "--repo", repo("egress-declared")});
  ASSERT_EQ(a.code, 0) << a.err;
  auto b = strata({"egress", "--quiet", "render", "--repo", repo("egress-declared"), "--format", "squid"});
  ASSERT_EQ(b.code, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.out.find("http_access deny all\n"), std::string::npos);
  EXPECT_NE(a.err.find("strata egress render: 9 host(s) (4 declared, 5 inferred), read-only"), std::string::npos) << a.err;
  EXPECT_EQ(b.err, "");
  for (const char* f : {"openshell", "cilium", "json"}) {
    auto r = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", f});
    EXPECT_EQ(r.code, 0) << f << r.err;
    EXPECT_NE(r.out.find("0.1.0"), std::string::npos) << f << r.out;
  }
}

TEST_F(EgressCli, UsageErrorsExitTwo) {
  auto none = strata({"egress", "render", "--format", "json"});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("exactly one of --repo DIR and --contract FILE"), std::string::npos) << none.err;
  auto nofmt = strata({"egress", "render", "--repo", repo("egress-declared")});
  EXPECT_EQ(nofmt.code, 2);
  auto badfmt = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", "iptables"});
  EXPECT_EQ(badfmt.code, 2);
  auto inc = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", "json", "--include", "most"});
  EXPECT_EQ(inc.code, 2);
  EXPECT_NE(inc.err.find("expected declared, inferred or all"), std::string::npos) << inc.err;
  auto sel = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", "cilium", "--selector", "x"});
  EXPECT_EQ(sel.code, 2);
  auto tls = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", "squid", "--tls", "peek"});
  EXPECT_EQ(tls.code, 2);
}

TEST_F(EgressCli, AHostileDeclarationExitsOneNamingFileAndEntry) {
  auto r = strata({"egress", "render", "--repo", repo("egress-hostile"), "--format", "openshell"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find(".mac/project.yaml: egress[0] (\"10.0.0.5\"): host is an IP literal in the private range"),
            std::string::npos)
      << r.err;
  auto existing = strata({"egress", "render", "--repo", repo("mise-asdf-project"), "--format", "json"});
  EXPECT_EQ(existing.code, 1);
  EXPECT_NE(existing.err.find("egress[2] (hooks.example.com): access \"read-write\" cannot be granted"), std::string::npos)
      << existing.err;
  EXPECT_NE(existing.err.find("egress[3] has no host"), std::string::npos) << existing.err;
}

TEST_F(EgressCli, OutputFileJsonSummaryAndContractInput) {
  auto out = (dir_ / "policy.yaml").string();
  auto r = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", "openshell", "-o", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "");
  auto printed = strata({"egress", "render", "--repo", repo("egress-declared"), "--format", "openshell"});
  EXPECT_EQ(slurp(out), printed.out);
  auto j = strata({"--json", "egress", "render", "--repo", repo("egress-declared"), "--format", "json"});
  ASSERT_EQ(j.code, 0) << j.err;
  auto doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["format"], "json");
  EXPECT_EQ(doc["hosts"].size(), 9u);  // github.com for the github: dependency, beside its codeload tarball
  EXPECT_EQ(nlohmann::json::parse(doc["policy"].get<std::string>())["kind"], "strata-egress-policy");
  auto scan = strata({"contract", "scan", repo("egress-declared")});
  ASSERT_EQ(scan.code, 0);
  std::ofstream(dir_ / "contract.yaml") << scan.out;
  auto from_file =
      strata({"egress", "render", "--contract", (dir_ / "contract.yaml").string(), "--format", "openshell"});
  ASSERT_EQ(from_file.code, 0) << from_file.err;
  EXPECT_EQ(from_file.out, printed.out);  // same contract, same digest, same bytes
}

}  // namespace
}  // namespace strata::testing
