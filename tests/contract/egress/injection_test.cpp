// Text from a repository (a declared reason, an evidence path, the repository
// name) cannot become policy. A YAML 1.1 reader such as PyYAML ends a comment
// at U+0085, U+2028 and U+2029, not only at \n: a reason carrying them used to
// continue, in the rendered OpenShell or Cilium policy, as an extra endpoint
// for an attacker's host. Each policy is read back by PyYAML (python3-yaml,
// a real YAML 1.1 reader, run as a program) and by strata's own reader, and
// must grant exactly the declared host; the squid fragment must read back the
// same and hold none of those characters.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "contract/egress/output_text.hpp"
#include "contract/egress/policy.hpp"
#include "contract/egress/policy_file.hpp"
#include "contract/egress/render.hpp"
#include "contract/egress/squid_policy.hpp"
#include "contract/egress/yaml_text.hpp"
#include "support/run.hpp"
#include "support/temp_dir.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

struct Separator {
  const char* name;
  std::string bytes;
};

const std::vector<Separator> kSeparators = {
    {"U+2028", "\xE2\x80\xA8"}, {"U+0085", "\xC2\x85"}, {"U+2029", "\xE2\x80\xA9"}, {"ESC", "\x1B"}};

// The lines a YAML 1.1 reader would see after the comment ends at `sep`: a
// read-write endpoint (OpenShell) or a name (Cilium) for attacker.example.net,
// then a '#' so the rest of the real comment line stays a comment.
std::string payload(const std::string& format, const std::string& sep) {
  if (format == "openshell")
    return "mirror" + sep + "      - host: \"attacker.example.net\"" + sep + "        port: 443" + sep +
           "        protocol: rest" + sep + "        access: read-write" + sep + "        enforcement: enforce" + sep +
           "      #";
  return "mirror" + sep + "        - matchName: \"attacker.example.net\"" + sep + "        #";
}

Contract contract_with_reason(const std::string& reason, const std::string& sep) {
  Contract c;
  c.root = "repo" + sep + "# the repository's name";
  EgressHost h;
  h.host = "reads.example.com";
  h.origin = EgressOrigin::kDeclared;
  h.reason = reason;
  h.evidence = {{".mac/project.yaml" + sep + "      # an evidence path", "egress[0]", "reads.example.com"}};
  c.egress_hosts.push_back(h);
  return c;
}

std::string render(const Contract& c, const std::string& format) {
  auto p = build_policy(c, PolicyHeader{c.root, "sha256:0", "test", Include::kAll});
  EXPECT_TRUE(p.has_value()) << p.error().message();
  if (!p) return {};
  RenderRequest r;
  r.format = format;
  auto text = render_policy(*p, r);
  EXPECT_TRUE(text.has_value()) << text.error().message();
  return text ? *text : std::string();
}

// What PyYAML reads as granted: "host:port:access" per OpenShell endpoint,
// "name:port" per Cilium toFQDNs entry and port.
std::string pyyaml_grants(const std::string& format, const std::string& text) {
  strata::testing::TempDir dir;
  std::ofstream(dir / "policy.yaml", std::ios::binary) << text;
  static const char* kScript = R"(import json, sys, yaml
fmt, path = sys.argv[1], sys.argv[2]
d = yaml.safe_load(open(path, encoding="utf-8"))
out = []
if fmt == "openshell":
    for rule in (d.get("network_policies") or {}).values():
        for ep in rule.get("endpoints") or []:
            out.append("%s:%s:%s" % (ep.get("host"), ep.get("port"), ep.get("access")))
else:
    for rule in d["spec"]["egress"]:
        for f in rule.get("toFQDNs") or []:
            for tp in rule.get("toPorts") or []:
                for p in tp.get("ports") or []:
                    out.append("%s:%s" % (f.get("matchName") or f.get("matchPattern"), p.get("port")))
print(json.dumps(sorted(out)))
)";
  auto r = strata::testing::run({"python3", "-c", kScript, format, (dir / "policy.yaml").string()});
  EXPECT_EQ(r.code, 0) << "PyYAML (apt-get install python3-yaml) could not read the policy:\n" << r.err << "\n" << text;
  return strata::testing::trim_nl(r.out);
}

std::vector<std::string> strata_grants(const std::string& text) {
  auto list = read_policy_text(text, "policy");
  EXPECT_TRUE(list.has_value()) << list.error().message() << "\n" << text;
  std::vector<std::string> out;
  if (list)
    for (const auto& h : list->hosts) out.push_back(h.host + ":" + std::to_string(h.port));
  return out;
}

TEST(PolicyInjection, YamlPoliciesGrantExactlyTheDeclaredHostToAYaml11Reader) {
  for (const char* format : {"openshell", "cilium"})
    for (const auto& sep : kSeparators) {
      std::string text = render(contract_with_reason(payload(format, sep.bytes), sep.bytes), format);
      std::string expected = std::string(format) == "openshell" ? R"(["reads.example.com:443:read-only"])"
                                                                : R"(["reads.example.com:443"])";
      EXPECT_EQ(pyyaml_grants(format, text), expected) << format << " " << sep.name << "\n" << text;
      EXPECT_EQ(strata_grants(text), std::vector<std::string>{"reads.example.com:443"}) << format << " " << sep.name;
      EXPECT_EQ(text.find(sep.bytes), std::string::npos) << format << " " << sep.name << " is in the output";
    }
}

TEST(PolicyInjection, SquidFragmentsKeepRepositoryTextInOneCommentLine) {
  for (const auto& sep : kSeparators) {
    std::string reason = "mirror" + sep.bytes + "http_access allow all" + sep.bytes + "\xE2\x80\xAE" + "lla wolla";
    std::string text = render(contract_with_reason(reason, sep.bytes), "squid");
    EXPECT_EQ(strata_grants(text), std::vector<std::string>{"reads.example.com:443"}) << sep.name;
    for (const char* bad : {"\xE2\x80\xA8", "\xE2\x80\xA9", "\xC2\x85", "\x1B", "\xE2\x80\xAE", "\r"})
      EXPECT_EQ(text.find(bad), std::string::npos) << sep.name << "\n" << text;
    // squid reads a line up to \n; every line is a comment or a directive strata writes.
    for (auto line : str::split(text, '\n')) {
      if (line.empty() || line.starts_with('#')) continue;
      EXPECT_TRUE(line.starts_with("acl strata_") || line.starts_with("http_access ") || line.starts_with("ssl_bump "))
          << sep.name << ": " << line;
      EXPECT_NE(line, "http_access allow all");
    }
  }
}

TEST(PolicyInjection, YamlScalarsEscapeEveryLineBreakAndReadBackTheSame) {
  std::string s = "a\xE2\x80\xA8" "b\xC2\x85" "c\xE2\x80\xA9" "d\x1B" "e\"f\\g\xE2\x80\xAEh\xEF\xBB\xBFi";
  std::string q = yaml_quote(s);
  for (const char* bad : {"\xE2\x80\xA8", "\xE2\x80\xA9", "\xC2\x85", "\x1B", "\xE2\x80\xAE", "\xEF\xBB\xBF"})
    EXPECT_EQ(q.find(bad), std::string::npos) << q;
  EXPECT_EQ(YAML::Load(q).Scalar(), s) << q;
  EXPECT_EQ(yaml_quote("\xFF"), "\"\\uFFFD\"");  // not UTF-8: what every output does with it
  EXPECT_EQ(yaml_comment("a\xE2\x80\xA8" "b\xC2\x85" "c\xFF"), "a b c\xEF\xBF\xBD");
  EXPECT_EQ(one_line("\xC3\xA9\xC3\xA9", 3), "\xC3\xA9...");  // cut at a character, not inside one
}

}  // namespace
}  // namespace strata::contract::egress
