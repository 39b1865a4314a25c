#include "contract/egress/policy_file.hpp"

#include <algorithm>
#include <array>

#include "contract/egress/cilium_policy.hpp"
#include "contract/egress/json_policy.hpp"
#include "contract/egress/openshell_policy.hpp"
#include "contract/egress/squid_policy.hpp"
#include "contract/model/host_name.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

constexpr std::array<std::string_view, 9> kMethods = {"CONNECT", "DELETE", "GET",   "HEAD", "OPTIONS",
                                                      "PATCH",   "POST",   "PUT",   "TRACE"};

bool has(const std::vector<std::string>& v, std::string_view s) { return std::find(v.begin(), v.end(), s) != v.end(); }

}  // namespace

Result<void> check_allowed_host(const AllowedHost& h, std::string_view where) {
  std::string w(where);
  if (auto p = host_name_problem(h.host, true))
    return fail(ErrorCode::kInvalidArgument, w + ": host " + str::quote(h.host) + " " + *p);
  if (h.port < 1 || h.port > 65535)
    return fail(ErrorCode::kInvalidArgument, w + ": port " + std::to_string(h.port) + " is outside 1-65535");
  for (const auto& m : h.methods)
    if (std::find(kMethods.begin(), kMethods.end(), m) == kMethods.end())
      return fail(ErrorCode::kInvalidArgument,
                  w + ": method " + str::quote(m) + " is not an HTTP method (GET, HEAD, OPTIONS, POST, …)");
  return {};
}

Result<Allowlist> read_policy_text(std::string_view text, const std::string& file) {
  std::string_view t = str::trim(text);
  if (t.empty()) return fail(ErrorCode::kInvalidArgument, file + ": empty policy file");
  if (t.front() == '{') return read_json_policy(text, file);
  // squid: directives at the start of a line; YAML formats: a mapping.
  for (auto raw : str::split(text, '\n')) {
    auto line = str::trim(raw);
    if (line.starts_with("http_access ") || line.starts_with("acl ")) return read_squid_policy(text, file);
  }
  bool cilium = false, openshell = false;
  for (auto raw : str::split(text, '\n')) {
    if (raw.starts_with("kind:") && str::trim(raw.substr(5)) == "CiliumNetworkPolicy") cilium = true;
    if (raw.starts_with("network_policies:") || raw.starts_with("version:")) openshell = true;
  }
  if (cilium) return read_cilium_policy(text, file);
  if (openshell) return read_openshell_policy(text, file);
  return fail(ErrorCode::kInvalidArgument,
              file + ": not an egress policy strata reads (json, an OpenShell policy, a CiliumNetworkPolicy or a "
                     "squid fragment from `strata egress render`)");
}

Result<Allowlist> read_policy_file(const std::filesystem::path& file) {
  STRATA_TRY(auto text, with_context(fs::read_file(file, kMaxPolicyFileBytes), "reading the egress policy"));
  return read_policy_text(text, file.string());
}

bool allows_read(const Allowlist& list, std::string_view host, int port) {
  std::string h = str::lower(host);
  return std::any_of(list.hosts.begin(), list.hosts.end(), [&](const AllowedHost& a) {
    return a.port == port && host_matches(a.host, h) &&
           (a.methods.empty() || (has(a.methods, "GET") && has(a.methods, "HEAD")));
  });
}

}  // namespace strata::contract::egress
