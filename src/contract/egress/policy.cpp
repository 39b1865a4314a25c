#include "contract/egress/policy.hpp"

#include <algorithm>
#include <array>
#include <tuple>

#include "contract/model/host_name.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

// Files whose hosts npm-style clients read: the registry is asked for
// scoped packages as /@scope%2Fname.
bool npm_file(std::string_view file) {
  static constexpr std::array<std::string_view, 8> kFiles = {".npmrc",         "package-lock.json", "npm-shrinkwrap.json",
                                                             "pnpm-lock.yaml", "yarn.lock",         "bun.lock",
                                                             ".yarnrc.yml",    ".yarnrc"};
  auto slash = file.rfind('/');
  std::string_view base = slash == std::string_view::npos ? file : file.substr(slash + 1);
  return std::find(kFiles.begin(), kFiles.end(), base) != kFiles.end();
}

bool npm_host(const EgressHost& h) {
  if (h.host == "registry.npmjs.org" || h.host == "registry.yarnpkg.com") return true;
  return std::any_of(h.evidence.begin(), h.evidence.end(), [](const Evidence& e) { return npm_file(e.file); });
}

}  // namespace

const char* include_name(Include i) {
  switch (i) {
    case Include::kAll: return "all";
    case Include::kDeclared: return "declared";
    case Include::kInferred: return "inferred";
  }
  return "all";
}

Result<Include> parse_include(std::string_view s) {
  if (s == "all" || s == "both") return Include::kAll;
  if (s == "declared") return Include::kDeclared;
  if (s == "inferred") return Include::kInferred;
  return fail(ErrorCode::kInvalidArgument,
              "--include " + str::quote(s) + ": expected declared, inferred or all (the default)");
}

Result<Policy> build_policy(const Contract& c, PolicyHeader header) {
  if (!c.egress_rejected.empty()) {
    std::string msg = std::to_string(c.egress_rejected.size()) + " egress declaration(s) of " +
                      (c.root.empty() ? std::string("the repository") : c.root) + " cannot be granted:";
    for (const auto& r : c.egress_rejected) msg += "\n  " + r.file + ": " + r.entry + " " + r.message;
    msg += "\nfix or remove these entries, then render again";
    return fail(ErrorCode::kInvalidArgument, msg);
  }
  Policy p;
  p.header = std::move(header);
  const bool include_run =
      std::find(c.include.begin(), c.include.end(), purpose_name(Purpose::kRun)) != c.include.end();
  for (const auto& h : c.egress_hosts) {
    bool declared = h.origin == EgressOrigin::kDeclared;
    if (declared && p.header.include == Include::kInferred) continue;
    if (!declared && p.header.include == Include::kDeclared) continue;
    std::string where = (h.evidence.empty() ? std::string("the contract") : h.evidence.front().file + " " +
                                                                                h.evidence.front().field);
    // What only the production image reaches is not the sandbox's, unless
    // the repository includes its run needs (docs/contract.md, "Needs").
    if (h.purpose == Purpose::kRun && !include_run) {
      p.notes.push_back("left out " + h.host + " (" + egress_origin_name(h.origin) + ", " + where +
                        "): only the production image reaches it; include: [run] in .mac/project.yaml grants it");
      continue;
    }
    if (auto why = host_name_problem(h.host, declared)) {
      if (declared)
        return fail(ErrorCode::kInvalidArgument, "declared egress host " + str::quote(h.host) + " (" + where + ") " +
                                                     *why + "; fix the declaration, then render again");
      p.notes.push_back("left out " + str::quote(h.host) + " (" + egress_origin_name(h.origin) + ", " + where +
                        "): it " + *why);
      continue;
    }
    if (h.port < 1 || h.port > 65535) {
      if (declared)
        return fail(ErrorCode::kInvalidArgument, "declared egress host " + h.host + " (" + where + ") has port " +
                                                     std::to_string(h.port) + ", outside 1-65535");
      p.notes.push_back("left out " + h.host + ": port " + std::to_string(h.port) + " is outside 1-65535");
      continue;
    }
    if (h.access != "read-only")
      return fail(ErrorCode::kInvalidArgument, "egress host " + h.host + " (" + where + ") asks for access " +
                                                   str::quote(h.access) + "; strata grants read-only (GET and HEAD) only");
    PolicyHost ph;
    ph.host = h.host;
    ph.port = h.port;
    ph.declared = declared;
    ph.origin = h.origin;
    ph.reason = h.reason;
    ph.evidence = h.evidence;
    ph.npm_registry = npm_host(h);
    p.hosts.push_back(std::move(ph));
  }
  std::sort(p.hosts.begin(), p.hosts.end(),
            [](const PolicyHost& a, const PolicyHost& b) { return std::tie(a.host, a.port) < std::tie(b.host, b.port); });
  for (std::size_t i = 1; i < p.hosts.size(); ++i)
    if (p.hosts[i].host == p.hosts[i - 1].host && p.hosts[i].port == p.hosts[i - 1].port)
      return fail(ErrorCode::kInvalidArgument,
                  "egress host " + p.hosts[i].host + ":" + std::to_string(p.hosts[i].port) + " is listed twice in the contract");
  return p;
}

std::string header_comment(const Policy& p, std::string_view format, CommentText comment) {
  std::string out;
  out += "# strata egress policy (" + std::string(format) + "), read-only: GET and HEAD\n";
  out += "# repo: " + comment(p.header.repo, 400) + "\n";
  out += "# contract: " + p.header.contract_digest + "\n";
  out += "# strata: " + p.header.strata_version + "\n";
  out += std::string("# include: ") + include_name(p.header.include) +
         (p.header.include == Include::kAll ? " (declared and inferred hosts, each labelled)\n" : " hosts only\n");
  for (const auto& n : p.notes) out += "# note: " + comment(n, 400) + "\n";
  return out;
}

}  // namespace strata::contract::egress
