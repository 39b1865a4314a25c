#include "contract/egress/openshell_policy.hpp"

#include <algorithm>

#include "contract/egress/yaml_text.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

void endpoint(std::string& out, const PolicyHost& h) {
  out += "      # " + h.host + ": " + h.described() + ", " + yaml_comment(h.reason);
  if (!h.evidence.empty()) out += " [" + yaml_comment(h.evidence.front().file + " " + h.evidence.front().field, 80) + "]";
  out += "\n";
  if (h.wildcard()) out += "      # wildcard: OpenShell matches one extra first label, not " + h.host.substr(2) + " itself\n";
  out += "      - host: " + yaml_quote(h.host) + "\n";
  out += "        port: " + std::to_string(h.port) + "\n";
  out += "        protocol: rest\n";
  out += "        access: read-only\n";
  out += "        enforcement: enforce\n";
  if (h.npm_registry) out += "        allow_encoded_slash: true\n";
}

void entry(std::string& out, const Policy& p, bool declared) {
  auto n = std::count_if(p.hosts.begin(), p.hosts.end(), [&](const PolicyHost& h) { return h.declared == declared; });
  if (n == 0) return;
  std::string key = declared ? "strata_declared" : "strata_inferred";
  out += "  " + key + ":\n";
  out += std::string("    name: ") + (declared ? "strata-declared" : "strata-inferred") + "\n";
  out += "    endpoints:\n";
  for (const auto& h : p.hosts)
    if (h.declared == declared) endpoint(out, h);
}

// Methods OpenShell's REST access presets expand to.
std::vector<std::string> preset_methods(const std::string& access) {
  if (access == "read-only") return {"GET", "HEAD", "OPTIONS"};
  if (access == "read-write") return {"GET", "HEAD", "OPTIONS", "POST", "PUT", "PATCH"};
  return {};  // full
}

bool is_l7(const std::string& p) {
  return p == "rest" || p == "websocket" || p == "graphql" || p == "sql" || p == "json-rpc" || p == "mcp";
}

Result<int> port_of(const YAML::Node& n, const std::string& where) {
  if (!n.IsScalar()) return fail(ErrorCode::kInvalidArgument, where + ": port is not a number");
  auto v = str::parse_u64(n.Scalar());
  if (!v || *v < 1 || *v > 65535)
    return fail(ErrorCode::kInvalidArgument, where + ": port " + str::quote(n.Scalar()) + " is outside 1-65535");
  return static_cast<int>(*v);
}


Result<void> read_endpoint(const YAML::Node& ep, const std::string& where, Allowlist& list) {
  if (!ep.IsMap()) return fail(ErrorCode::kInvalidArgument, where + ": not a mapping");
  if (auto bad = unknown_keys(ep, {"host", "path", "port", "ports", "protocol", "tls", "enforcement", "access", "rules",
                                   "allowed_ips", "deny_rules", "allow_encoded_slash", "websocket_credential_rewrite",
                                   "request_body_credential_rewrite", "allow_uninspected_credentials",
                                   "persisted_queries", "graphql_persisted_queries", "graphql_max_body_bytes",
                                   "credential_signing", "signing_service", "signing_region", "json_rpc", "mcp"});
      !bad.empty())
    return fail(ErrorCode::kInvalidArgument, where + ": unknown field(s) " + bad);
  std::string protocol = scalar(ep["protocol"]), access = scalar(ep["access"]), enforcement = scalar(ep["enforcement"]);
  bool rules = ep["rules"] && ep["rules"].IsSequence() && ep["rules"].size() > 0;
  bool deny = ep["deny_rules"] && ep["deny_rules"].IsSequence() && ep["deny_rules"].size() > 0;
  if (!protocol.empty() && protocol != "tcp" && !is_l7(protocol))
    return fail(ErrorCode::kInvalidArgument, where + ": unknown protocol " + str::quote(protocol));
  if (protocol == "tcp" && (!access.empty() || rules || deny))
    return fail(ErrorCode::kInvalidArgument, where + ": protocol tcp does not take access, rules or deny_rules");
  if (rules && !access.empty()) return fail(ErrorCode::kInvalidArgument, where + ": rules and access are mutually exclusive");
  if (is_l7(protocol) && !rules && access.empty())
    return fail(ErrorCode::kInvalidArgument, where + ": protocol " + protocol + " needs rules or access");
  if (!access.empty() && access != "read-only" && access != "read-write" && access != "full")
    return fail(ErrorCode::kInvalidArgument, where + ": access " + str::quote(access) + " is not read-only, read-write or full");
  if (!enforcement.empty() && enforcement != "enforce" && enforcement != "audit")
    return fail(ErrorCode::kInvalidArgument, where + ": enforcement " + str::quote(enforcement) + " is not enforce or audit");
  AllowedHost h;
  h.host = str::lower(scalar(ep["host"]));
  if (h.host.empty()) return fail(ErrorCode::kInvalidArgument, where + ": host is missing");
  if (!is_l7(protocol) || enforcement == "audit") {
    // L4 passthrough, or audit mode: every method reaches the host.
  } else if (rules) {
    for (const auto& r : ep["rules"]) {
      std::string m = scalar(r["allow"]["method"]);
      if (m == "*") {
        h.methods.clear();
        break;
      }
      if (!m.empty() && std::find(h.methods.begin(), h.methods.end(), m) == h.methods.end()) h.methods.push_back(m);
    }
  } else {
    h.methods = preset_methods(access);
  }
  std::vector<int> ports;
  if (ep["port"]) {
    STRATA_TRY(auto p, port_of(ep["port"], where));
    ports.push_back(p);
  }
  if (ep["ports"] && ep["ports"].IsSequence())
    for (const auto& p : ep["ports"]) {
      STRATA_TRY(auto v, port_of(p, where));
      ports.push_back(v);
    }
  if (ports.empty()) return fail(ErrorCode::kInvalidArgument, where + " (" + h.host + "): port is missing");
  for (int port : ports) {
    AllowedHost x = h;
    x.port = port;
    STRATA_TRY_VOID(check_allowed_host(x, where));
    list.hosts.push_back(std::move(x));
  }
  return {};
}

}  // namespace

std::string render_openshell(const Policy& p) {
  std::string out = header_comment(p, "openshell", yaml_comment);
  out += "# binaries: none listed; strata does not know the executables' paths in the image (add them to narrow\n";
  out += "# a rule to the package managers that need it).\n";
  out += "version: 1\n";
  if (p.hosts.empty()) return out + "network_policies: {}\n";
  out += "network_policies:\n";
  entry(out, p, true);
  entry(out, p, false);
  return out;
}

Result<Allowlist> read_openshell_policy(std::string_view text, const std::string& file) {
  STRATA_TRY(auto doc, load_yaml(text, file));
  if (!doc.IsMap()) return fail(ErrorCode::kInvalidArgument, file + ": not an OpenShell policy (not a mapping)");
  if (auto bad = unknown_keys(doc, {"version", "filesystem_policy", "landlock", "process", "network_policies",
                                    "network_middlewares"});
      !bad.empty())
    return fail(ErrorCode::kInvalidArgument, file + ": unknown field(s) " + bad);
  if (scalar(doc["version"]) != "1")
    return fail(ErrorCode::kInvalidArgument, file + ": version is not 1 (OpenShell's policy schema version)");
  Allowlist list;
  list.format = "openshell";
  YAML::Node np = doc["network_policies"];
  if (!np || np.IsNull()) return list;
  if (!np.IsMap()) return fail(ErrorCode::kInvalidArgument, file + ": network_policies is not a mapping");
  for (const auto& kv : np) {
    std::string where = file + ": network_policies." + kv.first.Scalar();
    const YAML::Node& rule = kv.second;
    if (!rule.IsMap()) return fail(ErrorCode::kInvalidArgument, where + ": not a mapping");
    if (auto bad = unknown_keys(rule, {"name", "endpoints", "binaries"}); !bad.empty())
      return fail(ErrorCode::kInvalidArgument, where + ": unknown field(s) " + bad);
    YAML::Node eps = rule["endpoints"];
    if (!eps) continue;
    if (!eps.IsSequence()) return fail(ErrorCode::kInvalidArgument, where + ": endpoints is not a list");
    for (std::size_t i = 0; i < eps.size(); ++i)
      STRATA_TRY_VOID(read_endpoint(eps[i], where + ".endpoints[" + std::to_string(i) + "]", list));
  }
  return list;
}

}  // namespace strata::contract::egress
