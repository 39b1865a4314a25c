#include "contract/egress/cilium_policy.hpp"

#include <algorithm>
#include <map>

#include "contract/egress/output_text.hpp"
#include "contract/egress/yaml_text.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

bool label_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

bool label_value_ok(std::string_view v) {
  if (v.size() > 63) return false;
  if (v.empty()) return true;
  auto alnum = [](char c) { return label_char(c) && c != '-' && c != '_' && c != '.'; };
  return alnum(v.front()) && alnum(v.back()) && std::all_of(v.begin(), v.end(), label_char);
}

// A DNS-1123 name from the repository directory: "My_App" → "my-app".
std::string policy_name(const Policy& p, const CiliumOptions& o) {
  if (!o.name.empty()) return o.name;
  std::string repo = p.header.repo;
  while (repo.size() > 1 && repo.back() == '/') repo.pop_back();
  auto slash = repo.rfind('/');
  std::string base = str::lower(slash == std::string::npos ? repo : repo.substr(slash + 1));
  std::string out;
  for (char c : base) out += ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) ? c : '-';
  while (!out.empty() && out.front() == '-') out.erase(0, 1);
  while (!out.empty() && out.back() == '-') out.pop_back();
  out = "strata-egress" + (out.empty() || out == "." ? std::string() : "-" + out);
  if (out.size() > 63) out.resize(63);
  while (out.back() == '-') out.pop_back();
  return out;
}

std::string fqdn_selector(const PolicyHost& h) {
  return h.wildcard() ? "matchPattern: " + yaml_quote(h.host) : "matchName: " + yaml_quote(h.host);
}

// "GET", "HEAD", "GET|HEAD", "^GET$" → the method names; nullopt for a
// regular expression strata does not read as a plain list.
std::optional<std::vector<std::string>> methods_of(std::string m) {
  if (m.starts_with('^')) m.erase(0, 1);
  if (m.ends_with('$')) m.pop_back();
  if (m.size() > 2 && m.front() == '(' && m.back() == ')') m = m.substr(1, m.size() - 2);
  std::vector<std::string> out;
  for (auto part : str::split(m, '|')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), [](char c) { return c >= 'A' && c <= 'Z'; }))
      return std::nullopt;
    out.emplace_back(part);
  }
  return out;
}

}  // namespace

Result<std::pair<std::string, std::string>> parse_selector(std::string_view s) {
  auto eq = s.find('=');
  if (eq == std::string_view::npos || eq == 0)
    return fail(ErrorCode::kInvalidArgument, "--selector " + str::quote(s) + ": expected KEY=VALUE (e.g. role=sandbox)");
  std::string key(s.substr(0, eq)), value(s.substr(eq + 1));
  std::string_view name = key;
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  if (name.empty() || !label_value_ok(name) || key.size() > 316 ||
      !std::all_of(key.begin(), key.end(), [](char c) { return label_char(c) || c == '/' || c == ':'; }))
    return fail(ErrorCode::kInvalidArgument, "--selector " + str::quote(s) + ": " + str::quote(key) +
                                                 " is not a Kubernetes label key");
  if (!label_value_ok(value))
    return fail(ErrorCode::kInvalidArgument,
                "--selector " + str::quote(s) + ": " + str::quote(value) +
                    " is not a label value (63 characters at most: letters, digits, '-', '_', '.', alphanumeric at both ends)");
  return std::pair{key, value};
}

std::string render_cilium(const Policy& p, const CiliumOptions& o) {
  std::string name = policy_name(p, o);
  auto selector = o.selector;
  if (selector.empty()) selector.emplace_back("strata.dev/egress", name);
  std::sort(selector.begin(), selector.end());

  std::string out = header_comment(p, "cilium", yaml_comment);
  out += "# HTTPS: the rules.http below see requests on port 443 only where Cilium terminates TLS\n";
  out += "# (add terminatingTLS and originatingTLS to that toPorts entry); without them, enforce by name\n";
  out += "# (toFQDNs) and drop the http rules.\n";
  out += "apiVersion: cilium.io/v2\n";
  out += "kind: CiliumNetworkPolicy\n";
  out += "metadata:\n";
  out += "  name: " + yaml_quote(name) + "\n";
  out += "spec:\n";
  out += "  description: " + yaml_quote("read-only egress of " + one_line(p.header.repo, 200) + " (strata egress render)") + "\n";
  out += "  endpointSelector:\n";
  out += "    matchLabels:\n";
  for (const auto& [k, v] : selector) out += "      " + yaml_quote(k) + ": " + yaml_quote(v) + "\n";
  if (p.hosts.empty()) {
    out += "  # no hosts: one empty egress rule puts the endpoints in default deny for egress\n";
    out += "  egress:\n";
    out += "    - {}\n";
    return out;
  }
  out += "  egress:\n";
  out += "    # DNS to kube-dns for exactly these names: toFQDNs learns addresses from DNS answers only\n";
  out += "    - toEndpoints:\n";
  out += "        - matchLabels:\n";
  out += "            \"k8s:io.kubernetes.pod.namespace\": \"kube-system\"\n";
  out += "            \"k8s:k8s-app\": \"kube-dns\"\n";
  out += "      toPorts:\n";
  out += "        - ports:\n";
  out += "            - port: \"53\"\n";
  out += "              protocol: ANY\n";
  out += "          rules:\n";
  out += "            dns:\n";
  std::vector<std::string> names;
  for (const auto& h : p.hosts)
    if (std::find(names.begin(), names.end(), h.host) == names.end()) {
      names.push_back(h.host);
      out += "              - " + fqdn_selector(h) + "\n";
    }
  std::map<int, std::vector<const PolicyHost*>> by_port;
  for (const auto& h : p.hosts) by_port[h.port].push_back(&h);
  for (const auto& [port, hosts] : by_port) {
    out += "    - toFQDNs:\n";
    for (const auto* h : hosts) {
      out += "        # " + h->host + ": " + h->described() + ", " +
             yaml_comment(h->reason) + "\n";
      if (h->wildcard()) out += "        # wildcard: matchPattern \"*.\" matches one extra label, not " + h->host.substr(2) + "\n";
      out += "        - " + fqdn_selector(*h) + "\n";
    }
    out += "      toPorts:\n";
    out += "        - ports:\n";
    out += "            - port: \"" + std::to_string(port) + "\"\n";
    out += "              protocol: TCP\n";
    out += "          rules:\n";
    out += "            http:\n";
    for (auto m : kReadMethods) out += "              - method: \"" + std::string(m) + "\"\n";
  }
  return out;
}

Result<Allowlist> read_cilium_policy(std::string_view text, const std::string& file) {
  STRATA_TRY(auto doc, load_yaml(text, file));
  if (!doc.IsMap() || scalar(doc["kind"]) != "CiliumNetworkPolicy")
    return fail(ErrorCode::kInvalidArgument, file + ": not a CiliumNetworkPolicy");
  if (scalar(doc["apiVersion"]) != "cilium.io/v2")
    return fail(ErrorCode::kInvalidArgument, file + ": apiVersion is not cilium.io/v2");
  Allowlist list;
  list.format = "cilium";
  YAML::Node egress = doc["spec"]["egress"];
  if (!egress) return list;
  if (!egress.IsSequence()) return fail(ErrorCode::kInvalidArgument, file + ": spec.egress is not a list");
  for (std::size_t i = 0; i < egress.size(); ++i) {
    std::string where = file + ": spec.egress[" + std::to_string(i) + "]";
    const YAML::Node& rule = egress[i];
    YAML::Node fqdns = rule["toFQDNs"];
    if (!fqdns) continue;
    if (!fqdns.IsSequence()) return fail(ErrorCode::kInvalidArgument, where + ": toFQDNs is not a list");
    std::vector<std::string> hosts;
    for (std::size_t j = 0; j < fqdns.size(); ++j) {
      std::string n = scalar(fqdns[j]["matchName"]), pat = scalar(fqdns[j]["matchPattern"]);
      if (n.empty() == pat.empty())
        return fail(ErrorCode::kInvalidArgument,
                    where + ".toFQDNs[" + std::to_string(j) + "]: needs exactly one of matchName and matchPattern");
      std::string h = str::lower(n.empty() ? pat : n);
      if (h.ends_with('.')) h.pop_back();  // Cilium adds the trailing dot itself
      hosts.push_back(h);
    }
    std::vector<std::pair<int, std::vector<std::string>>> grants;
    YAML::Node ports = rule["toPorts"];
    if (!ports || !ports.IsSequence() || ports.size() == 0)
      return fail(ErrorCode::kInvalidArgument,
                  where + ": toFQDNs without toPorts allows every port; strata reads policies that name the port");
    for (std::size_t j = 0; j < ports.size(); ++j) {
      std::string pw = where + ".toPorts[" + std::to_string(j) + "]";
      std::vector<std::string> methods;
      if (YAML::Node http = ports[j]["rules"]["http"]; http && http.IsSequence()) {
        for (const auto& r : http) {
          std::string m = scalar(r["method"]);
          if (m.empty()) {  // a rule without a method allows every method
            methods.clear();
            break;
          }
          auto ms = methods_of(m);
          if (!ms) return fail(ErrorCode::kInvalidArgument, pw + ": method " + str::quote(m) + " is not a list of method names");
          for (auto& x : *ms)
            if (std::find(methods.begin(), methods.end(), x) == methods.end()) methods.push_back(x);
        }
      }
      YAML::Node pl = ports[j]["ports"];
      if (!pl || !pl.IsSequence()) return fail(ErrorCode::kInvalidArgument, pw + ": ports is missing");
      for (const auto& pp : pl) {
        auto v = str::parse_u64(scalar(pp["port"]));
        if (!v || *v < 1 || *v > 65535)
          return fail(ErrorCode::kInvalidArgument, pw + ": port " + str::quote(scalar(pp["port"])) + " is not a port number");
        std::string proto = scalar(pp["protocol"]);
        if (!proto.empty() && proto != "TCP" && proto != "ANY") continue;
        grants.emplace_back(static_cast<int>(*v), methods);
      }
    }
    for (const auto& h : hosts)
      for (const auto& [port, methods] : grants) {
        AllowedHost a{h, port, methods};
        STRATA_TRY_VOID(check_allowed_host(a, where));
        list.hosts.push_back(std::move(a));
      }
  }
  return list;
}

}  // namespace strata::contract::egress
