// Declarations in .mac/project.yaml: what is granted, labelled and kept
// (reason, comment, port, wildcard), and every hostile or malformed entry
// refused with a message naming the file and the entry — in the scan (a
// warning; the scan goes on) and in `egress render` (an error listing all).
#include <gtest/gtest.h>

#include "contract/egress/contract_input.hpp"
#include "contract/egress/policy.hpp"
#include "contract/scan/scan.hpp"
#include "contract/model/serialize.hpp"
#include "egress_test_support.hpp"
#include "support/temp_dir.hpp"
#include "support/yaml_bombs.hpp"

#include <algorithm>
#include <fstream>

namespace strata::contract::egress::testing {
namespace {

const PolicyHost* find(const Policy& p, const std::string& host, int port = 443) {
  for (const auto& h : p.hosts)
    if (h.host == host && h.port == port) return &h;
  return nullptr;
}

TEST(Declarations, DeclaredAndInferredHostsAreLabelledWithOriginAndReason) {
  auto r = render_fixture(request("egress-declared", "json"));
  ASSERT_TRUE(r.has_value()) << r.error().message();
  const Policy& p = r->policy;
  const PolicyHost* gh = find(p, "api.github.com");
  ASSERT_NE(gh, nullptr);
  EXPECT_TRUE(gh->declared);
  EXPECT_EQ(gh->reason, "release metadata for the changelog task");
  const PolicyHost* assets = find(p, "objects.githubusercontent.com");
  ASSERT_NE(assets, nullptr);
  EXPECT_EQ(assets->reason, "release assets the install script downloads");  // the line's comment
  const PolicyHost* docs = find(p, "*.docs.example.org");
  ASSERT_NE(docs, nullptr);
  EXPECT_TRUE(docs->wildcard());
  EXPECT_NE(find(p, "artifacts.example.com", 8443), nullptr);
  EXPECT_EQ(find(p, "artifacts.example.com", 443), nullptr);
  const PolicyHost* npm = find(p, "npm.internal.example.org");
  ASSERT_NE(npm, nullptr);
  EXPECT_FALSE(npm->declared);
  EXPECT_EQ(npm->origin, EgressOrigin::kConfig);
  EXPECT_TRUE(npm->npm_registry);
  const PolicyHost* codeload = find(p, "codeload.github.com");
  ASSERT_NE(codeload, nullptr);
  EXPECT_EQ(codeload->origin, EgressOrigin::kLockfile);
  EXPECT_EQ(find(p, "pypi.org")->origin, EgressOrigin::kDefault);
}

TEST(Declarations, IncludeSelectsDeclaredOrInferred) {
  auto d = request("egress-declared", "json");
  d.include = Include::kDeclared;
  auto declared = render_fixture(d);
  ASSERT_TRUE(declared.has_value());
  ASSERT_EQ(declared->policy.hosts.size(), 4u);
  for (const auto& h : declared->policy.hosts) EXPECT_TRUE(h.declared) << h.host;
  d.include = Include::kInferred;
  auto inferred = render_fixture(d);
  ASSERT_TRUE(inferred.has_value());
  EXPECT_FALSE(inferred->policy.hosts.empty());
  for (const auto& h : inferred->policy.hosts) EXPECT_FALSE(h.declared) << h.host;
  EXPECT_EQ(parse_include("both").value(), Include::kAll);
  EXPECT_FALSE(parse_include("some").has_value());
}

// A host only the production image's final stage reaches (a download in
// its RUN line) is not granted to the sandbox: a note says why and how to
// grant it; the registry the build needs stays.
TEST(Declarations, AHostOnlyTheProductionImageReachesIsLeftOutWithANote) {
  auto r = render_fixture(request("needs-production-image", "json"));
  ASSERT_TRUE(r.has_value()) << r.error().message();
  EXPECT_EQ(find(r->policy, "downloads.example-media.org"), nullptr);
  EXPECT_NE(find(r->policy, "registry.npmjs.org"), nullptr);
  auto note = std::find_if(r->policy.notes.begin(), r->policy.notes.end(), [](const std::string& n) {
    return n.starts_with("left out downloads.example-media.org (install-time, Dockerfile line 11): only the "
                         "production image reaches it; include: [run] in .mac/project.yaml grants it");
  });
  EXPECT_NE(note, r->policy.notes.end()) << ::testing::PrintToString(r->policy.notes);
}

// Each hostile entry of testdata/repos/egress-hostile and the message it gets.
const std::vector<std::pair<std::string, std::string>> kHostile = {
    {"egress[0]", "(\"10.0.0.5\"): host is an IP literal in the private range 10.0.0.0/8"},
    {"egress[1]", "(\"169.254.169.254\"): host is an IP literal link-local (169.254.0.0/16, cloud metadata)"},
    {"egress[2]", "(\"bad host.example.com\"): host has the character \" \""},
    {"egress[3]", "has port \"70000\", outside 1-65535"},
    {"egress[4]", "(hooks.example.com): access \"read-write\" cannot be granted; strata's egress is read-only"},
    {"egress[5]", "(\"*\"): host is a bare wildcard; it would grant every host"},
    {"egress[6]", "(\"*.com\"): host is a wildcard over a top-level domain"},
    {"egress[7]", "(\"a*.example.com\"): host has a wildcard that is not a whole first label"},
    {"egress[8]", "(\"localhost\"): host is a special-use name (RFC 6761: localhost is the machine itself)"},
    {"egress[10]", "(mirror.example.com): mirror.example.com:443 is declared twice (also egress[9])"},
    {"egress[11]", "has the key \"methods\"; an entry has host, port, access and reason"},
    {"egress[12]", "has no host"},
    {"egress[13]", "(\"evil.example.com\\x0ahttp_access allow all\"): host has the character \"\\x0a\""},
    {"egress[14]", "(\"[::1]\"): host is an IP literal loopback (::1)"},
    {"egress[15]", "(\"metadata.google.internal\"): host is a special-use name (the cloud metadata service of Google "
                   "Cloud, which hands out the instance's credentials); egress is granted to public host names"},
    {"egress[16]", "(\"*.svc.cluster.local\"): host is a special-use name (Kubernetes cluster DNS"},
    {"egress[17]", "(\"169.254.169.254.nip.io\"): host is under nip.io, a service that resolves a name to any address"},
    {"egress[18]", "(\"*.github.io\"): host is a wildcard at a public suffix (github.io is on the Public Suffix List)"},
    {"egress[19]", "(\"co.uk\"): host is a public suffix (co.uk is on the Public Suffix List)"},
    {"egress[20]", "(\"host.docker.internal\"): host is a special-use name (Docker's name for the host machine)"},
    {"egress[21]", "(\"*.localhost\"): host is a special-use name (RFC 6761: localhost is the machine itself)"},
};

TEST(Declarations, EveryHostileDeclarationIsAWarningInTheScan) {
  auto c = in_source_dir([] { return scan_repository("testdata/repos/egress-hostile"); });
  ASSERT_TRUE(c.has_value()) << c.error().message();  // the scan itself goes on
  ASSERT_EQ(c->egress_rejected.size(), kHostile.size());
  for (std::size_t i = 0; i < kHostile.size(); ++i) {
    EXPECT_EQ(c->egress_rejected[i].file, ".mac/project.yaml");
    EXPECT_EQ(c->egress_rejected[i].entry, kHostile[i].first);
    EXPECT_NE(c->egress_rejected[i].message.find(kHostile[i].second), std::string::npos)
        << kHostile[i].first << ": " << c->egress_rejected[i].message;
  }
  // Only the first mirror.example.com, and reads.example.com, are granted.
  ASSERT_EQ(c->egress_hosts.size(), 2u);
  EXPECT_EQ(c->egress_hosts[0].host, "mirror.example.com");
  EXPECT_EQ(c->egress_hosts[1].host, "reads.example.com");
}

TEST(Declarations, AProjectYamlWhoseAliasesExpandWithoutEndIsNotUsed) {
  strata::testing::TempDir repo;
  std::filesystem::create_directories(repo / ".mac");
  // 1000 declarations sharing one 16 KiB reason: a 16 MiB contract from
  // 60 KiB; levels of aliases make a billion nodes from 1 KiB.
  std::string shared = strata::testing::long_anchor("why", 16 << 10) + "egress:\n";
  for (int i = 0; i < 1000; ++i) shared += "  - {host: h" + std::to_string(i) + ".example.com, reason: *s}\n";
  const std::string laughs = strata::testing::billion_laughs(9) + "egress: [api.github.com]\n";
  for (const auto& [yaml, why] : std::vector<std::pair<std::string, std::string>>{
           {shared, "YAML aliases expand to more than 8.0 MiB of text (a 'billion laughs' document); refusing it"},
           {laughs, "YAML aliases expand to more than 100000 nodes (a 'billion laughs' document); refusing it"}}) {
    std::ofstream(repo / ".mac/project.yaml", std::ios::trunc) << yaml;
    auto c = scan_repository(repo.path());
    ASSERT_TRUE(c.has_value()) << c.error().message();  // the scan goes on, without the file
    for (const auto& h : c->egress_hosts) EXPECT_EQ(h.origin == EgressOrigin::kDeclared, false) << h.host;
    bool warned = false;
    for (const auto& w : c->warnings) warned |= w.file == ".mac/project.yaml" && w.message.find(why) != std::string::npos;
    EXPECT_TRUE(warned) << "no warning on .mac/project.yaml saying: " << why;
    // What the file declares is unknown: rejected as a whole, so a render
    // refuses naming it instead of a policy without the declared hosts.
    ASSERT_EQ(c->egress_rejected.size(), 1u);
    EXPECT_EQ(c->egress_rejected[0].entry, "(the whole file)");
    EXPECT_NE(c->egress_rejected[0].message.find(why), std::string::npos) << c->egress_rejected[0].message;
  }
}

TEST(ContractInput, AContractWhoseAliasesExpandWithoutEndIsRefused) {
  strata::testing::TempDir dir;
  // Five levels of ten: 111 111 nodes from 400 bytes (nine: a billion).
  std::ofstream(dir / "c.yaml") << "schema_version: 1\n" << strata::testing::billion_laughs(5, "notes");
  auto r = read_contract_input(dir / "c.yaml");
  ASSERT_FALSE(r.has_value()) << "a billion-laughs contract was read";
  EXPECT_EQ(r.error().message(), (dir / "c.yaml").string() +
                                     ": line 8: YAML aliases expand to more than 100000 nodes (a 'billion laughs' "
                                     "document); refusing it");
}

TEST(Declarations, RenderRefusesAHostileRepositoryListingEveryEntry) {
  for (const char* format : kFormats) {
    auto r = render_fixture(request("egress-hostile", format));
    ASSERT_FALSE(r.has_value()) << format;
    const std::string& m = r.error().message();
    EXPECT_NE(m.find("egress policy of testdata/repos/egress-hostile: 21 egress declaration(s)"), std::string::npos) << m;
    for (const auto& [entry, msg] : kHostile)
      EXPECT_NE(m.find(".mac/project.yaml: " + entry + " " + msg), std::string::npos) << entry << "\n" << m;
    EXPECT_NE(m.find("fix or remove these entries"), std::string::npos);
  }
}

TEST(Declarations, ANewlineInAHostCannotReachTheOutput) {
  auto c = in_source_dir([] { return scan_repository("testdata/repos/egress-hostile"); });
  ASSERT_TRUE(c.has_value());
  Contract only_good = *c;
  only_good.egress_rejected.clear();
  EgressHost evil;
  evil.host = "evil.example.com\nhttp_access allow all";
  evil.origin = EgressOrigin::kLockfile;
  only_good.egress_hosts.push_back(evil);
  auto p = build_policy(only_good, PolicyHeader{});
  ASSERT_TRUE(p.has_value()) << p.error().message();
  ASSERT_EQ(p->hosts.size(), 2u);  // an inferred host that breaks the rule is left out, with a note
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_NE(p->notes[0].find("left out"), std::string::npos);
  RenderRequest r;
  r.format = "squid";
  auto text = render_policy(*p, r);
  ASSERT_TRUE(text.has_value());
  EXPECT_EQ(text->find("\nhttp_access allow all"), std::string::npos) << *text;
}

// Hosts strata infers (a registry in .npmrc, lockfile URLs) obey the same
// rule as declarations: an internal or special-use name is a note, never a grant.
TEST(Declarations, InferredInternalNamesBecomeNotesNotGrants) {
  strata::testing::TempDir dir;
  std::ofstream(dir / "package.json") << R"({"name": "app", "version": "1.0.0", "dependencies": {"a": "^1.0.0", "b": "^1.0.0"}})";
  std::ofstream(dir / ".npmrc") << "registry=https://npm.acme.internal/\n";
  std::ofstream(dir / "package-lock.json") << R"({"name": "app", "version": "1.0.0", "lockfileVersion": 3, "packages": {
    "": {"name": "app", "version": "1.0.0"},
    "node_modules/a": {"version": "1.0.0", "resolved": "https://registry.svc.cluster.local/a/-/a-1.0.0.tgz"},
    "node_modules/b": {"version": "1.0.0", "resolved": "http://169.254.169.254.nip.io/b/-/b-1.0.0.tgz"}}})";
  auto c = scan_repository(dir.path());
  ASSERT_TRUE(c.has_value()) << c.error().message();
  for (const auto& h : c->egress_hosts)
    for (const char* bad : {"internal", "cluster.local", "nip.io"})
      EXPECT_EQ(h.host.find(bad), std::string::npos) << h.host << " was granted";
  auto noted = [&](const std::string& what) {
    return std::any_of(c->notes.begin(), c->notes.end(),
                       [&](const Diagnostic& d) { return d.message.find(what) != std::string::npos; });
  };
  EXPECT_TRUE(noted("host \"npm.acme.internal\" is not an egress host (is a special-use name"));
  EXPECT_TRUE(noted("host \"registry.svc.cluster.local\" is not an egress host (is a special-use name"));
  EXPECT_TRUE(noted("host \"169.254.169.254.nip.io\" is not an egress host (is under nip.io"));
  RenderRequest r;
  r.repo = dir.path();
  r.format = "json";
  auto out = render_egress(r);
  ASSERT_TRUE(out.has_value()) << out.error().message();
  for (const char* bad : {"\"npm.acme.internal\"", "\"registry.svc.cluster.local\"", "\"169.254.169.254.nip.io\""})
    EXPECT_EQ(out->text.find(std::string("\"host\": ") + bad), std::string::npos) << out->text;
}

TEST(Declarations, AHandWrittenContractWithABadDeclaredHostIsRefused) {
  Contract c;
  EgressHost h;
  h.host = "192.168.1.10";
  h.origin = EgressOrigin::kDeclared;
  h.evidence = {{"contract.yaml", "egress_hosts[0]", "192.168.1.10"}};
  c.egress_hosts.push_back(h);
  auto p = build_policy(c, PolicyHeader{});
  ASSERT_FALSE(p.has_value());
  EXPECT_NE(p.error().message().find("declared egress host \"192.168.1.10\" (contract.yaml egress_hosts[0]) is an IP "
                                     "literal in the private range 192.168.0.0/16"),
            std::string::npos)
      << p.error().message();
}

TEST(ContractInput, AContractFileRendersLikeTheRepositoryItCameFrom) {
  strata::testing::TempDir dir;
  auto c = in_source_dir([] { return scan_repository("testdata/repos/egress-declared"); });
  ASSERT_TRUE(c.has_value());
  std::ofstream(dir / "contract.yaml") << to_yaml(*c);
  std::ofstream(dir / "contract.json") << to_json(*c);
  for (const char* format : kFormats) {
    std::string from_repo = rendered(request("egress-declared", format));
    for (const char* file : {"contract.yaml", "contract.json"}) {
      RenderRequest r;
      r.contract_file = dir / file;
      r.format = format;
      r.strata_version = kTestVersion;
      auto out = render_egress(r);
      ASSERT_TRUE(out.has_value()) << out.error().message();
      EXPECT_EQ(out->text, from_repo) << format << " from " << file;  // same hosts, same digest
    }
  }
}

TEST(ContractInput, MalformedContractFilesAreNamed) {
  strata::testing::TempDir dir;
  auto err = [&](const std::string& text) {
    std::ofstream(dir / "c.yaml", std::ios::trunc) << text;
    auto r = read_contract_input(dir / "c.yaml");
    EXPECT_FALSE(r.has_value());
    return r ? std::string() : r.error().message();
  };
  EXPECT_NE(err("schema_version: 2\n").find("c.yaml: schema_version 2 (this strata reads 1)"), std::string::npos);
  EXPECT_NE(err("- a\n").find("c.yaml: not a contract"), std::string::npos);
  EXPECT_NE(err("schema_version: 1\negress_hosts:\n  - host: \"a.example.com\"\n    origin: \"elsewhere\"\n")
                .find("c.yaml: egress_hosts[0].origin: unknown value \"elsewhere\""),
            std::string::npos);
  EXPECT_NE(err("schema_version: 1\negress_hosts: {}\n").find("c.yaml: egress_hosts must be a list"), std::string::npos);
  EXPECT_NE(err("{\"schema_version\": 1,").find("c.yaml: not valid YAML"), std::string::npos);  // JSON is read as YAML
  EXPECT_NE(err("a: [b\n").find("c.yaml: not valid YAML"), std::string::npos);
  RenderRequest absent;
  absent.contract_file = dir / "absent.yaml";
  absent.format = "json";
  auto missing = render_egress(absent);
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message().find("absent.yaml"), std::string::npos);
  RenderRequest two;
  two.repo = "a";
  two.contract_file = "b";
  two.format = "json";
  auto both = render_egress(two);
  ASSERT_FALSE(both.has_value());
  EXPECT_NE(both.error().message().find("exactly one of --repo DIR and --contract FILE"), std::string::npos);
}

}  // namespace
}  // namespace strata::contract::egress::testing
