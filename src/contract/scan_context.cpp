#include "contract/scan_context.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "contract/host_name.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

// Per host, evidence is kept once per file and capped: a 30 MB lockfile names
// the same registry a hundred thousand times.
constexpr std::size_t kMaxEvidencePerHost = 8;

int origin_rank(EgressOrigin o) {
  switch (o) {
    case EgressOrigin::kDeclared: return 0;
    case EgressOrigin::kConfig: return 1;
    case EgressOrigin::kLockfile: return 2;
    case EgressOrigin::kInstallTime: return 3;
    case EgressOrigin::kDefault: return 4;
  }
  return 5;
}

std::string describe(const Evidence& e) { return e.file + " " + e.field + "=" + str::quote(e.value, 60); }

}  // namespace

std::string url_host(std::string_view url) {
  auto scheme = url.find("://");
  if (scheme == std::string_view::npos) return {};
  url.remove_prefix(scheme + 3);
  auto end = url.find_first_of("/?#");
  std::string_view auth = url.substr(0, end);
  if (auto at = auth.rfind('@'); at != std::string_view::npos) auth.remove_prefix(at + 1);
  std::string host = str::lower(auth);
  // Default ports say nothing: "registry.npmjs.org:443" is the same host.
  if (host.ends_with(":443") || host.ends_with(":80")) host.erase(host.rfind(':'));
  for (char c : host)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == ':' || c == '[' || c == ']'))
      return {};
  return host;
}

void ScanContext::constraint(const std::string& tool, Evidence ev, const Result<Range>& range, std::string note) {
  Constraint c;
  c.source = std::move(ev);
  c.note = std::move(note);
  auto& tc = tools_[tool];
  if (range) {
    c.range = range->str();
    if (auto f = range->floor()) c.floor = f->str();
    tc.ranges.push_back(*range);
  } else {
    warn(c.source.file, c.source.field + ": cannot read " + str::quote(c.source.value) + " as a version range (" +
                            range.error().message() + "); kept verbatim, not used for the floor");
    tc.ranges.push_back(std::nullopt);
  }
  tc.constraints.push_back(std::move(c));
}

void ScanContext::needs_tool(const std::string& tool, Evidence ev, std::string note) {
  constexpr std::size_t kMaxPresenceEvidence = 4;
  auto& v = needed_tools_[tool];
  if (v.size() < kMaxPresenceEvidence) v.push_back({std::move(ev), "", "", std::move(note)});
}

void ScanContext::needs_tool(const std::string& tool, const std::vector<std::string>& manifests, std::string note) {
  auto depth = [](const std::string& f) { return std::count(f.begin(), f.end(), '/'); };
  auto at = std::min_element(manifests.begin(), manifests.end(), [&](const std::string& a, const std::string& b) {
    return std::make_tuple(depth(a), a) < std::make_tuple(depth(b), b);
  });
  if (at != manifests.end()) needs_tool(tool, Evidence{*at, "file", "present"}, std::move(note));
}

PackageSignals& ScanContext::package(const std::string& ecosystem, const std::string& name) {
  auto& p = packages_[{ecosystem, name}];
  if (p.name.empty()) {
    p.ecosystem = ecosystem;
    p.name = name;
  }
  return p;
}

std::optional<Version> ScanContext::pnpm_version_for(std::string_view file) const {
  std::string dir(file);
  for (;;) {
    auto slash = dir.rfind('/');
    dir = slash == std::string::npos ? "." : dir.substr(0, slash);
    if (auto it = pnpm_versions.find(dir); it != pnpm_versions.end()) return it->second;
    if (dir == ".") return std::nullopt;
  }
}

void ScanContext::build_lib(const std::string& pkg, const std::string& by) { build_libs_[pkg].insert(by); }
void ScanContext::run_lib(const std::string& pkg, const std::string& by) { run_libs_[pkg].insert(by); }

namespace {
void keep_evidence(std::vector<Evidence>& evs, Evidence ev) {
  if (evs.size() < ScanContext::kRunLibEvidence && std::find(evs.begin(), evs.end(), ev) == evs.end())
    evs.push_back(std::move(ev));
}
}  // namespace

void ScanContext::run_lib(const std::string& pkg, const std::string& by, Evidence ev) {
  run_libs_[pkg].insert(by);
  keep_evidence(run_lib_evidence_[pkg], std::move(ev));
}

void ScanContext::build_lib(const std::string& pkg, const std::string& by, Evidence ev) {
  build_libs_[pkg].insert(by);
  keep_evidence(build_lib_evidence_[pkg], std::move(ev));
}

void ScanContext::egress(const std::string& host_in, EgressOrigin origin, const std::string& reason,
                         std::optional<Evidence> ev, const std::string& mirror_env, int port) {
  std::string host = host_in;
  if (auto colon = host.rfind(':'); colon != std::string::npos && host.find(']') == std::string::npos) {
    if (auto p = str::parse_u64(std::string_view(host).substr(colon + 1)); p && *p >= 1 && *p <= 65535) {
      port = static_cast<int>(*p);
      host.erase(colon);
    }
  }
  if (host.empty()) return;
  // An inferred host must be one a policy can grant (a DNS name, no IP
  // literal, no stray port); `https://[::1]:8080/x` or `host:abc` is a note.
  if (origin != EgressOrigin::kDeclared) {
    if (auto problem = host_name_problem(host, false)) {
      note(ev ? ev->file : ".", (ev ? ev->field + ": " : std::string()) + "host " + str::quote(host, 60) +
                                    " is not an egress host (" + *problem + "); left out");
      return;
    }
  }
  auto [it, fresh] = egress_.try_emplace({host, port});
  EgressHost& h = it->second;
  if (fresh || origin_rank(origin) < origin_rank(h.origin)) {
    h.host = host;
    h.port = port;
    h.origin = origin;
    h.reason = reason;
  }
  if (h.mirror_env.empty()) h.mirror_env = mirror_env;
  // A lockfile names its registry once per package: one entry per file is
  // evidence enough. Config files keep every field (registry and auth line).
  auto same = [&](const Evidence& e) {
    return e.file == ev->file && (origin == EgressOrigin::kLockfile || e.field == ev->field);
  };
  if (ev && h.evidence.size() < kMaxEvidencePerHost && std::none_of(h.evidence.begin(), h.evidence.end(), same))
    h.evidence.push_back(std::move(*ev));
}

void ScanContext::egress_url(std::string_view url, EgressOrigin origin, const std::string& reason, Evidence ev) {
  std::string host = url_host(url);
  if (host.empty()) return;
  egress(host, origin, reason, std::move(ev));
}

void ScanContext::egress_rejected(RejectedEgress r) {
  warn(r.file, r.entry + " " + r.message);
  egress_rejected_.push_back(std::move(r));
}

void ScanContext::command(const std::string& name, const std::string& reason) { commands_[name].insert(reason); }

void ScanContext::workspace(Workspace ws) {
  for (const auto& w : workspaces_)
    if (w.path == ws.path && w.manager == ws.manager) return;
  workspaces_.push_back(std::move(ws));
}

Contract ScanContext::finish(std::string root, std::vector<NativePackage> natives) {
  Contract c;
  c.root = std::move(root);
  c.ecosystems.assign(ecosystems_.begin(), ecosystems_.end());
  for (auto& [tool, tc] : tools_) {
    RuntimeFloor rf;
    rf.constraints = tc.constraints;
    Range all = Range::all();
    std::optional<Version> highest;
    for (const auto& r : tc.ranges) {
      if (!r) continue;
      all = intersect(all, *r);
      if (auto f = r->floor(); f && (!highest || *highest < *f)) highest = f;
    }
    if (!all.is_empty()) {
      if (auto f = all.floor()) rf.floor = f->str();
      rf.satisfying = all.str();
    } else {
      // No version satisfies everything: name every incompatible pair, and
      // still give the highest lower bound as the floor.
      if (highest) rf.floor = highest->str();
      for (std::size_t i = 0; i < tc.ranges.size(); ++i)
        for (std::size_t j = i + 1; j < tc.ranges.size(); ++j) {
          if (!tc.ranges[i] || !tc.ranges[j]) continue;
          if (intersect(*tc.ranges[i], *tc.ranges[j]).is_empty())
            rf.conflicts.push_back(describe(tc.constraints[i].source) + " (" + tc.constraints[i].range +
                                   ") excludes " + describe(tc.constraints[j].source) + " (" +
                                   tc.constraints[j].range + ")");
        }
    }
    c.runtime_floors[tool] = std::move(rf);
  }
  for (auto& [tool, evidence] : needed_tools_)
    if (!tools_.count(tool)) c.runtime_floors[tool].constraints = std::move(evidence);
  std::sort(natives.begin(), natives.end(), [](const NativePackage& a, const NativePackage& b) {
    return std::tie(a.ecosystem, a.name) < std::tie(b.ecosystem, b.name);
  });
  // An `assumed` compile is reported but decides nothing (docs/contract.md).
  c.native_build_required = std::any_of(natives.begin(), natives.end(), [](const NativePackage& n) {
    return n.build == BuildKind::kCompile && n.certainty != Certainty::kAssumed && !n.optional;
  });
  // Whatever links a -dev package at build time loads its library at run time.
  for (const auto& [pkg, by] : std::map<std::string, std::set<std::string>>(build_libs_))
    if (const auto* run = kb_.runtime_packages(pkg))
      for (const auto& r : *run) run_libs_[r].insert(by.begin(), by.end());
  c.native_packages = std::move(natives);
  auto with_evidence = [](const std::map<std::string, std::set<std::string>>& libs,
                          const std::map<std::string, std::vector<Evidence>>& evidence, std::vector<SystemLib>& out) {
    for (const auto& [pkg, by] : libs) {
      auto ev = evidence.find(pkg);
      out.push_back({pkg, {by.begin(), by.end()}, ev == evidence.end() ? std::vector<Evidence>{} : ev->second});
    }
  };
  with_evidence(build_libs_, build_lib_evidence_, c.build_libs);
  with_evidence(run_libs_, run_lib_evidence_, c.run_libs);
  for (auto& [key, h] : egress_) c.egress_hosts.push_back(std::move(h));
  c.egress_rejected = std::move(egress_rejected_);
  for (auto& [name, why] : commands_) c.required_commands.push_back({name, {why.begin(), why.end()}});
  c.workspaces = std::move(workspaces_);
  std::sort(c.workspaces.begin(), c.workspaces.end(),
            [](const Workspace& a, const Workspace& b) { return std::tie(a.path, a.manager) < std::tie(b.path, b.manager); });
  for (const auto& [file, date] : kb_.dates()) c.knowledge[file] = date;
  c.warnings = fs_.take_warnings();
  c.notes = fs_.take_notes();
  scrub_credentials(c);
  return c;
}

std::string without_credentials(std::string_view text) {
  std::string out(text);
  for (auto at = out.find("://"); at != std::string::npos; at = out.find("://", at + 3)) {
    std::size_t start = at + 3;
    std::size_t end = out.find_first_of("/?# \t\"'`", start);
    if (end == std::string::npos) end = out.size();
    std::size_t user_end = out.rfind('@', end == 0 ? 0 : end - 1);
    if (user_end == std::string::npos || user_end < start) continue;
    if (out.compare(start, user_end - start, "git") == 0) continue;  // ssh://git@host: a user name, not a secret
    static constexpr std::string_view kHidden = "(credential, not shown)";
    out.replace(start, user_end - start, kHidden);
  }
  return out;
}

// Everything a contract quotes from the repository (evidence, reasons,
// messages) without the user and password of a URL: `https://__token__:…@gitlab…`
// in a Dockerfile's pip line stays in the Dockerfile, not in the contract or the
// policies rendered from it.
void scrub_credentials(Contract& c) {
  auto scrub = [](std::string& s) {
    if (s.find('@') != std::string::npos) s = without_credentials(s);
  };
  auto scrub_all = [&](std::vector<Evidence>& evs) {
    for (auto& e : evs) scrub(e.value);
  };
  for (auto& [tool, rf] : c.runtime_floors)
    for (auto& k : rf.constraints) {
      scrub(k.source.value);
      scrub(k.note);
    }
  for (auto& n : c.native_packages) {
    scrub(n.reason);
    scrub_all(n.evidence);
  }
  for (auto* libs : {&c.build_libs, &c.run_libs})
    for (auto& l : *libs) scrub_all(l.evidence);
  for (auto& h : c.egress_hosts) {
    scrub(h.reason);
    scrub_all(h.evidence);
  }
  for (auto* diags : {&c.warnings, &c.notes})
    for (auto& d : *diags) scrub(d.message);
}

const char* build_kind_name(BuildKind k) {
  switch (k) {
    case BuildKind::kNone: return "none";
    case BuildKind::kPrebuilt: return "prebuilt";
    case BuildKind::kDownload: return "download";
    case BuildKind::kCompile: return "compile";
  }
  return "none";
}

const char* certainty_name(Certainty c) {
  switch (c) {
    case Certainty::kKnown: return "known";
    case Certainty::kInferred: return "inferred";
    case Certainty::kAssumed: return "assumed";
  }
  return "assumed";
}

const char* egress_origin_name(EgressOrigin o) {
  switch (o) {
    case EgressOrigin::kDeclared: return "declared";
    case EgressOrigin::kLockfile: return "lockfile";
    case EgressOrigin::kConfig: return "config";
    case EgressOrigin::kDefault: return "default";
    case EgressOrigin::kInstallTime: return "install-time";
  }
  return "default";
}

}  // namespace strata::contract
