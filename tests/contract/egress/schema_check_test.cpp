// The openshell and cilium outputs checked field by field against what the
// two projects document and enforce — written here from those facts, apart
// from strata's own reader, so a renderer bug cannot hide behind the reader:
//   OpenShell (policy schema reference, policy loader): top level version 1,
//   filesystem_policy, landlock, process, network_policies,
//   network_middlewares and nothing else; a rule has name, endpoints,
//   binaries; an endpoint only its documented fields; access one of
//   read-only/read-write/full and never with rules, never with protocol tcp;
//   an L7 protocol (rest, websocket, graphql, sql) needs rules or access;
//   enforcement enforce|audit; tls empty or skip; host wildcards only in the
//   first label, never "*"/"**" or a TLD wildcard; port an integer 1-65535.
//   Cilium (CiliumNetworkPolicy cilium.io/v2 field definitions): metadata
//   with a name; spec with exactly one of endpointSelector/nodeSelector;
//   egress rules with known To* fields, toFQDNs never beside another To*;
//   toFQDNs entries exactly one of matchName ^([-a-zA-Z0-9_]+[.]?)+$ and
//   matchPattern ^([-a-zA-Z0-9_*]+[.]?)+$ (255 characters at most); toPorts
//   entries ports/rules/TLS fields only; a port a quoted string, protocol
//   TCP|UDP|SCTP|VRRP|IGMP|ANY, at most 40 ports; rules exactly one of
//   http/kafka/dns/l7proto; http rules method/path/host/headers/headerMatches.
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <regex>
#include <set>

#include "contract/egress/policy_file.hpp"
#include "egress_test_support.hpp"

namespace strata::contract::egress::testing {
namespace {

using Errors = std::vector<std::string>;

void keys(const YAML::Node& m, const std::set<std::string>& known, const std::string& where, Errors& e) {
  if (!m.IsMap()) {
    e.push_back(where + ": not a mapping");
    return;
  }
  for (const auto& kv : m)
    if (!known.count(kv.first.Scalar())) e.push_back(where + ": unknown field " + kv.first.Scalar());
}

bool wildcard_ok(const std::string& host) {
  if (host == "*" || host == "**") return false;
  if (host.find('*') == std::string::npos) return true;
  auto dot = host.find('.');
  if (host.find('*', dot == std::string::npos ? 0 : dot) != std::string::npos) return false;  // beyond label one
  return std::count(host.begin(), host.end(), '.') >= 2;  // "*.com" is a TLD wildcard
}

Errors check_openshell(const std::string& text) {
  Errors e;
  YAML::Node doc = YAML::Load(text);
  keys(doc, {"version", "filesystem_policy", "landlock", "process", "network_policies", "network_middlewares"}, "policy", e);
  if (!doc["version"] || doc["version"].Scalar() != "1") e.push_back("version must be 1");
  YAML::Node np = doc["network_policies"];
  if (!np) return e;
  if (!np.IsMap()) return {"network_policies must be a map"};
  const std::set<std::string> endpoint_fields = {
      "host", "path", "port", "ports", "protocol", "tls", "enforcement", "access", "rules", "deny_rules", "allowed_ips",
      "allow_encoded_slash", "websocket_credential_rewrite", "request_body_credential_rewrite",
      "allow_uninspected_credentials", "credential_signing", "signing_service", "signing_region", "persisted_queries",
      "graphql_persisted_queries", "graphql_max_body_bytes", "mcp", "json_rpc"};
  for (const auto& kv : np) {
    std::string w = "network_policies." + kv.first.Scalar();
    keys(kv.second, {"name", "endpoints", "binaries"}, w, e);
    if (!kv.second["endpoints"] || !kv.second["endpoints"].IsSequence()) e.push_back(w + ": endpoints must be a list");
    for (std::size_t i = 0; kv.second["endpoints"] && i < kv.second["endpoints"].size(); ++i) {
      const YAML::Node ep = kv.second["endpoints"][i];
      std::string ew = w + ".endpoints[" + std::to_string(i) + "]";
      keys(ep, endpoint_fields, ew, e);
      std::string host = ep["host"] ? ep["host"].Scalar() : "";
      if (host.empty()) e.push_back(ew + ": host is required");
      if (!wildcard_ok(host)) e.push_back(ew + ": wildcard shape OpenShell rejects: " + host);
      if (!ep["port"]) e.push_back(ew + ": port is required");
      else if (ep["port"].Tag() == "!" || !std::regex_match(ep["port"].Scalar(), std::regex("[1-9][0-9]{0,4}")) ||
               std::stoi(ep["port"].Scalar()) > 65535)
        e.push_back(ew + ": port must be an integer 1-65535");
      std::string protocol = ep["protocol"] ? ep["protocol"].Scalar() : "";
      std::string access = ep["access"] ? ep["access"].Scalar() : "";
      bool rules = ep["rules"] && ep["rules"].size() > 0;
      bool l7 = protocol == "rest" || protocol == "websocket" || protocol == "graphql" || protocol == "sql";
      if (!protocol.empty() && !l7 && protocol != "tcp" && protocol != "mcp" && protocol != "json-rpc")
        e.push_back(ew + ": unknown protocol " + protocol);
      if (protocol == "tcp" && (!access.empty() || rules)) e.push_back(ew + ": access or rules with protocol tcp");
      if (rules && !access.empty()) e.push_back(ew + ": rules and access together");
      if (l7 && !rules && access.empty()) e.push_back(ew + ": L7 protocol without rules or access");
      if (!access.empty() && access != "read-only" && access != "read-write" && access != "full")
        e.push_back(ew + ": access " + access);
      if (ep["enforcement"] && ep["enforcement"].Scalar() != "enforce" && ep["enforcement"].Scalar() != "audit")
        e.push_back(ew + ": enforcement " + ep["enforcement"].Scalar());
      if (ep["tls"] && ep["tls"].Scalar() != "skip") e.push_back(ew + ": tls " + ep["tls"].Scalar());
      if (ep["allow_encoded_slash"] && ep["allow_encoded_slash"].Scalar() != "true" &&
          ep["allow_encoded_slash"].Scalar() != "false")
        e.push_back(ew + ": allow_encoded_slash must be a bool");
    }
  }
  return e;
}

Errors check_cilium(const std::string& text) {
  Errors e;
  YAML::Node doc = YAML::Load(text);
  keys(doc, {"apiVersion", "kind", "metadata", "spec"}, "policy", e);
  if (doc["apiVersion"].Scalar() != "cilium.io/v2") e.push_back("apiVersion must be cilium.io/v2");
  if (doc["kind"].Scalar() != "CiliumNetworkPolicy") e.push_back("kind must be CiliumNetworkPolicy");
  if (!doc["metadata"] || !doc["metadata"]["name"] ||
      !std::regex_match(doc["metadata"]["name"].Scalar(), std::regex("[a-z0-9]([-a-z0-9.]*[a-z0-9])?")))
    e.push_back("metadata.name must be a DNS-1123 name");
  YAML::Node spec = doc["spec"];
  keys(spec, {"description", "endpointSelector", "nodeSelector", "ingress", "ingressDeny", "egress", "egressDeny",
              "labels", "enableDefaultDeny", "log"},
       "spec", e);
  if (!!spec["endpointSelector"] == !!spec["nodeSelector"]) e.push_back("spec needs exactly one of endpointSelector, nodeSelector");
  const std::regex label_value("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");
  auto selector = [&](const YAML::Node& s, const std::string& w) {
    keys(s, {"matchLabels", "matchExpressions"}, w, e);
    if (s["matchLabels"])
      for (const auto& kv : s["matchLabels"])
        if (kv.second.Scalar().size() > 63 || !std::regex_match(kv.second.Scalar(), label_value))
          e.push_back(w + ": label value " + kv.second.Scalar());
  };
  selector(spec["endpointSelector"], "spec.endpointSelector");
  const std::regex name_re("^([-a-zA-Z0-9_]+[.]?)+$"), pattern_re("^([-a-zA-Z0-9_*]+[.]?)+$");
  auto fqdn = [&](const YAML::Node& f, const std::string& w) {
    keys(f, {"matchName", "matchPattern"}, w, e);
    if (!!f["matchName"] == !!f["matchPattern"]) e.push_back(w + ": exactly one of matchName, matchPattern");
    if (f["matchName"] && (f["matchName"].Scalar().size() > 255 || !std::regex_match(f["matchName"].Scalar(), name_re)))
      e.push_back(w + ": matchName " + f["matchName"].Scalar());
    if (f["matchPattern"] &&
        (f["matchPattern"].Scalar().size() > 255 || !std::regex_match(f["matchPattern"].Scalar(), pattern_re)))
      e.push_back(w + ": matchPattern " + f["matchPattern"].Scalar());
  };
  YAML::Node egress = spec["egress"];
  if (!egress || !egress.IsSequence() || egress.size() == 0) e.push_back("spec.egress must be a non-empty list");
  for (std::size_t i = 0; egress && i < egress.size(); ++i) {
    const YAML::Node r = egress[i];
    std::string w = "spec.egress[" + std::to_string(i) + "]";
    keys(r, {"toEndpoints", "toFQDNs", "toPorts", "toCIDR", "toCIDRSet", "toEntities", "toServices", "toGroups",
             "toNodes", "icmps", "authentication"},
         w, e);
    if (r["toFQDNs"])
      for (const char* other : {"toEndpoints", "toCIDR", "toCIDRSet", "toEntities", "toServices", "toGroups", "toNodes"})
        if (r[other]) e.push_back(w + ": toFQDNs beside " + other);
    for (std::size_t j = 0; r["toEndpoints"] && j < r["toEndpoints"].size(); ++j)
      selector(r["toEndpoints"][j], w + ".toEndpoints[" + std::to_string(j) + "]");
    for (std::size_t j = 0; r["toFQDNs"] && j < r["toFQDNs"].size(); ++j)
      fqdn(r["toFQDNs"][j], w + ".toFQDNs[" + std::to_string(j) + "]");
    for (std::size_t j = 0; r["toPorts"] && j < r["toPorts"].size(); ++j) {
      const YAML::Node tp = r["toPorts"][j];
      std::string pw = w + ".toPorts[" + std::to_string(j) + "]";
      keys(tp, {"ports", "rules", "terminatingTLS", "originatingTLS", "serverNames", "listener"}, pw, e);
      if (tp["ports"].size() > 40) e.push_back(pw + ": more than 40 ports");
      for (const auto& port : tp["ports"]) {
        keys(port, {"port", "endPort", "protocol"}, pw + ".ports", e);
        if (port["port"].Tag() != "!") e.push_back(pw + ": port must be a (quoted) string");
        if (!std::regex_match(port["port"].Scalar(), std::regex("[0-9]{1,5}")) || std::stoi(port["port"].Scalar()) > 65535)
          e.push_back(pw + ": port " + port["port"].Scalar());
        static const std::set<std::string> protos = {"TCP", "UDP", "SCTP", "VRRP", "IGMP", "ANY"};
        if (port["protocol"] && !protos.count(port["protocol"].Scalar())) e.push_back(pw + ": protocol " + port["protocol"].Scalar());
      }
      if (YAML::Node rules = tp["rules"]) {
        keys(rules, {"http", "kafka", "dns", "l7proto", "l7"}, pw + ".rules", e);
        int kinds = !!rules["http"] + !!rules["kafka"] + !!rules["dns"] + !!rules["l7proto"];
        if (kinds != 1) e.push_back(pw + ".rules: exactly one of http, kafka, dns, l7proto");
        for (const auto& h : rules["http"]) keys(h, {"method", "path", "host", "headers", "headerMatches"}, pw + ".rules.http", e);
        for (std::size_t k = 0; rules["dns"] && k < rules["dns"].size(); ++k)
          fqdn(rules["dns"][k], pw + ".rules.dns[" + std::to_string(k) + "]");
      }
    }
  }
  return e;
}

std::string joined(const Errors& e) {
  std::string s;
  for (const auto& x : e) s += x + "\n";
  return s;
}

const char* kRepos[] = {"egress-declared", "node-yarn-classic", "python-django-psycopg2", "go-cgo", "rust-openssl-sys",
                        "cmake-native"};

TEST(OpenShellSchema, EveryFixtureRendersAPolicyOpenShellLoads) {
  for (const char* repo : kRepos) {
    auto text = rendered(request(repo, "openshell"));
    auto errors = check_openshell(text);
    EXPECT_TRUE(errors.empty()) << repo << ":\n" << joined(errors) << text;
    YAML::Node doc = YAML::Load(text);
    for (const auto& kv : doc["network_policies"])
      for (const auto& ep : kv.second["endpoints"]) {
        EXPECT_EQ(ep["protocol"].Scalar(), "rest");
        EXPECT_EQ(ep["access"].Scalar(), "read-only");
        EXPECT_EQ(ep["enforcement"].Scalar(), "enforce");
        EXPECT_FALSE(kv.second["binaries"]) << "binaries are not known";
      }
  }
}

TEST(OpenShellSchema, NpmRegistriesAllowEncodedSlashesAndOthersDoNot) {
  YAML::Node doc = YAML::Load(rendered(request("egress-declared", "openshell")));
  std::map<std::string, bool> slash;
  for (const auto& kv : doc["network_policies"])
    for (const auto& ep : kv.second["endpoints"]) slash[ep["host"].Scalar()] = !!ep["allow_encoded_slash"];
  EXPECT_TRUE(slash.at("npm.internal.example.org"));
  EXPECT_TRUE(slash.at("codeload.github.com"));  // named by package-lock.json
  EXPECT_FALSE(slash.at("api.github.com"));
  EXPECT_FALSE(slash.at("pypi.org"));
  EXPECT_TRUE(doc["network_policies"]["strata_declared"]);
  EXPECT_TRUE(doc["network_policies"]["strata_inferred"]);
}

TEST(OpenShellSchema, TheCheckItselfCatchesWhatTheLoaderRejects) {
  const std::string head = "version: 1\nnetwork_policies:\n  p:\n    endpoints:\n      - host: a.example.com\n        port: 443\n";
  EXPECT_TRUE(check_openshell(head + "        protocol: rest\n        access: read-only\n").empty());
  EXPECT_FALSE(check_openshell(head + "        protocol: tcp\n        access: read-only\n").empty());
  EXPECT_FALSE(check_openshell(head + "        protocol: rest\n").empty());
  EXPECT_FALSE(check_openshell(head + "        protocol: rest\n        access: full\n        rules:\n          - allow: {method: GET, path: /}\n").empty());
  EXPECT_FALSE(check_openshell(head + "        methods: [GET]\n").empty());
  EXPECT_FALSE(check_openshell("version: 2\n").empty());
  EXPECT_FALSE(check_openshell("version: 1\nextra: 1\n").empty());
  // strata's reader refuses the same documents, naming the entry.
  for (const auto& [bad, msg] : std::vector<std::pair<std::string, std::string>>{
           {head + "        protocol: tcp\n        access: read-only\n", "protocol tcp does not take access"},
           {head + "        protocol: rest\n", "protocol rest needs rules or access"},
           {head + "        protocol: rest\n        access: full\n        rules:\n          - allow: {method: GET, path: /}\n",
            "rules and access are mutually exclusive"},
           {head + "        methods: [GET]\n", "unknown field(s) \"methods\""},
           {"version: 1\nextra: 1\n", "unknown field(s) \"extra\""}}) {
    auto r = read_policy_text(bad, "policy.yaml");
    ASSERT_FALSE(r.has_value()) << bad;
    EXPECT_NE(r.error().message().find(msg), std::string::npos) << r.error().message();
    EXPECT_NE(r.error().message().find("policy.yaml"), std::string::npos);
  }
}

TEST(CiliumSchema, EveryFixtureRendersAValidCiliumNetworkPolicy) {
  for (const char* repo : kRepos) {
    auto r = request(repo, "cilium");
    r.cilium.selector = {{"role", "sandbox"}};
    auto text = rendered(r);
    auto errors = check_cilium(text);
    EXPECT_TRUE(errors.empty()) << repo << ":\n" << joined(errors) << text;
  }
}

TEST(CiliumSchema, DnsRuleNamesExactlyThePolicyHosts) {
  auto text = rendered(request("egress-declared", "cilium"));
  YAML::Node doc = YAML::Load(text);
  YAML::Node egress = doc["spec"]["egress"];
  ASSERT_GE(egress.size(), 2u);
  EXPECT_EQ(egress[0]["toEndpoints"][0]["matchLabels"]["k8s:k8s-app"].Scalar(), "kube-dns");
  EXPECT_EQ(egress[0]["toPorts"][0]["ports"][0]["port"].Scalar(), "53");
  std::set<std::string> dns, fqdn;
  for (const auto& d : egress[0]["toPorts"][0]["rules"]["dns"])
    dns.insert(d["matchName"] ? d["matchName"].Scalar() : d["matchPattern"].Scalar());
  for (std::size_t i = 1; i < egress.size(); ++i) {
    for (const auto& f : egress[i]["toFQDNs"]) fqdn.insert(f["matchName"] ? f["matchName"].Scalar() : f["matchPattern"].Scalar());
    std::vector<std::string> methods;
    for (const auto& h : egress[i]["toPorts"][0]["rules"]["http"]) methods.push_back(h["method"].Scalar());
    EXPECT_EQ(methods, (std::vector<std::string>{"GET", "HEAD"}));
  }
  EXPECT_EQ(dns, fqdn);
  EXPECT_TRUE(fqdn.count("*.docs.example.org"));
  EXPECT_EQ(doc["spec"]["endpointSelector"]["matchLabels"]["strata.dev/egress"].Scalar(), "strata-egress-egress-declared");
}

TEST(CiliumSchema, TheCheckItselfCatchesBadFields) {
  const std::string ok =
      "apiVersion: cilium.io/v2\nkind: CiliumNetworkPolicy\nmetadata:\n  name: x\nspec:\n  endpointSelector: {}\n"
      "  egress:\n    - toFQDNs:\n        - matchName: a.example.com\n      toPorts:\n        - ports:\n"
      "            - port: \"443\"\n              protocol: TCP\n";
  EXPECT_TRUE(check_cilium(ok).empty()) << joined(check_cilium(ok));
  auto replace = [&](const std::string& a, const std::string& b) {
    std::string s = ok;
    s.replace(s.find(a), a.size(), b);
    return s;
  };
  EXPECT_FALSE(check_cilium(replace("port: \"443\"", "port: 443")).empty());
  EXPECT_FALSE(check_cilium(replace("protocol: TCP", "protocol: tcp")).empty());
  EXPECT_FALSE(check_cilium(replace("matchName: a.example.com", "matchName: \"a b\"")).empty());
  EXPECT_FALSE(check_cilium(replace("  endpointSelector: {}\n", "")).empty());
  EXPECT_FALSE(check_cilium(replace("    - toFQDNs:", "    - toCIDR: [\"1.2.3.4/32\"]\n      toFQDNs:")).empty());
}

TEST(CiliumSchema, SelectorsAreCheckedAsLabels) {
  EXPECT_TRUE(parse_selector("role=sandbox").has_value());
  EXPECT_TRUE(parse_selector("app.kubernetes.io/name=sandbox").has_value());
  EXPECT_FALSE(parse_selector("role").has_value());
  EXPECT_FALSE(parse_selector("=x").has_value());
  EXPECT_FALSE(parse_selector("role=has space").has_value());
  EXPECT_FALSE(parse_selector("role=" + std::string(64, 'a')).has_value());
}

TEST(PolicyRoundTrip, EveryFormatReadsBackToThePolicyItWasRenderedFrom) {
  for (const char* repo : kRepos)
    for (const char* format : kFormats)
      for (SquidTls tls : {SquidTls::kConnect, SquidTls::kBump}) {
        if (tls == SquidTls::kBump && std::string(format) != "squid") continue;
        auto req = request(repo, format);
        req.tls = tls;
        auto out = render_fixture(req);
        ASSERT_TRUE(out.has_value()) << out.error().message();
        auto list = read_policy_text(out->text, std::string(repo) + "." + format);
        ASSERT_TRUE(list.has_value()) << list.error().message() << "\n" << out->text;
        EXPECT_EQ(list->format, format);
        std::set<std::pair<std::string, int>> want, got;
        for (const auto& h : out->policy.hosts) {
          want.insert({h.host, h.port});
          EXPECT_TRUE(allows_read(*list, h.host, h.port)) << format << " " << h.host;
          if (!h.wildcard()) {
            EXPECT_FALSE(allows_read(*list, h.host, h.port == 1 ? 2 : 1)) << format;
          }
        }
        for (const auto& a : list->hosts) {
          got.insert({a.host, a.port});
          bool opaque = std::string(format) == "squid" && tls == SquidTls::kConnect;  // CONNECT hides methods
          if (!opaque) {
            EXPECT_EQ(std::count(a.methods.begin(), a.methods.end(), "POST"), 0) << format << " " << a.host;
            EXPECT_FALSE(a.methods.empty()) << format << " " << a.host;
          }
        }
        EXPECT_EQ(want, got) << repo << " " << format;
        EXPECT_FALSE(allows_read(*list, "undeclared.example.com"));
      }
}

}  // namespace
}  // namespace strata::contract::egress::testing
