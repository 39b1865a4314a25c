#include "contract/scan/scan_context.hpp"

#include <algorithm>
#include <cctype>
#include <tuple>

#include "contract/model/host_name.hpp"
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

void ScanContext::constraint(const std::string& tool, ConstraintKind kind, Evidence ev, const Result<Range>& range,
                             std::string note) {
  auto& tc = tools_[tool];
  // The same statement read twice (a matrix job repeated, a file read by two
  // scanners) is one constraint.
  // (A set, not a scan of the list: a CI file with thousands of jobs states thousands.)
  std::string key = ev.file + '\0' + ev.field + '\0' + ev.value + '\0' + constraint_kind_name(kind);
  if (!tc.seen.insert(std::move(key)).second) return;
  Constraint c;
  c.source = std::move(ev);
  c.note = std::move(note);
  c.kind = kind;
  c.scope = scope_of(c.source.file);
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

std::string ScanContext::scope_of(std::string_view file) {
  if (file.starts_with(".github/") || file.starts_with(".gitlab") || file.starts_with(".circleci/") ||
      file.starts_with(".devcontainer") || file.starts_with(".buildkite/") || file == "azure-pipelines.yml")
    return ".";
  if (!project_dirs_) {
    project_dirs_.emplace();
    for (std::string_view manifest : {"package.json", "pyproject.toml", "setup.py", "setup.cfg", "Pipfile",
                                      "requirements.txt", "go.mod", "Cargo.toml", "Gemfile", "gems.rb", "composer.json",
                                      "mix.exs"})
      for (const auto& f : fs_.files_named(manifest)) project_dirs_->insert(dir_of(f));
  }
  for (std::string dir = dir_of(file);; dir = dir_of(dir)) {
    if (dir == "." || project_dirs_->count(dir)) return dir;
  }
}

bool set_aside_tree(std::string_view file) {
  static constexpr std::string_view kAside[] = {"example", "examples", "sample", "samples", "demo", "demos",
                                                "doc", "docs", "documentation", "packaging", "release",
                                                "releases", "fixtures", "testdata", "test-fixtures"};
  std::string_view dirs = file.substr(0, file.rfind('/') == std::string_view::npos ? 0 : file.rfind('/'));
  for (auto part : str::split(dirs, '/')) {
    std::string lower = str::lower(part);
    for (auto a : kAside)
      if (lower == a) return true;
  }
  return false;
}

bool has_word(std::string_view text, std::initializer_list<std::string_view> words) {
  std::string word;
  for (char ch : str::lower(text) + "/") {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      word += ch;
      continue;
    }
    if (std::find(words.begin(), words.end(), word) != words.end()) return true;
    word.clear();
  }
  return false;
}

bool development_name(std::string_view name) {
  return has_word(name, {"dev", "devel", "develop", "development", "devcontainer", "test", "tests", "testing", "ci",
                         "e2e"});
}

bool development_file(std::string_view file) {
  if (file.starts_with('.') || file.find("/.") != std::string_view::npos) return true;
  return development_name(file);
}

bool ScanContext::development(std::string_view file) const {
  return development_file(file) || development_dockerfiles_.count(file) > 0;
}

const Evidence* ScanContext::development_reason(std::string_view file) const {
  auto it = development_dockerfiles_.find(file);
  return it == development_dockerfiles_.end() ? nullptr : &it->second;
}

void ScanContext::needs_tool(const std::string& tool, Evidence ev, std::string note) {
  constexpr std::size_t kMaxPresenceEvidence = 4;
  if (set_aside_tree(ev.file)) return;  // an example's or a doc's tool is not the repository's
  auto& v = needed_tools_[tool];
  if (v.size() < kMaxPresenceEvidence) v.push_back({std::move(ev), "", "", std::move(note)});
}

void ScanContext::needs_tool(const std::string& tool, const std::vector<std::string>& manifests, std::string note) {
  auto depth = [](const std::string& f) { return std::count(f.begin(), f.end(), '/'); };
  std::vector<std::string> own;
  for (const auto& m : manifests)
    if (!set_aside_tree(m)) own.push_back(m);
  auto at = std::min_element(own.begin(), own.end(), [&](const std::string& a, const std::string& b) {
    return std::make_tuple(depth(a), a) < std::make_tuple(depth(b), b);
  });
  if (at != own.end()) needs_tool(tool, Evidence{*at, "file", "present"}, std::move(note));
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

namespace {
void keep_evidence(std::vector<Evidence>& evs, Evidence ev) {
  if (evs.size() < ScanContext::kRunLibEvidence && std::find(evs.begin(), evs.end(), ev) == evs.end())
    evs.push_back(std::move(ev));
}

// A finding needed for building is a build need, whatever else needs it.
void merge_purpose(Purpose& into, Purpose p, bool fresh) {
  if (fresh || p == Purpose::kBuild) into = p;
}
}  // namespace

void ScanContext::build_lib(const std::string& pkg, const std::string& by) {
  build_libs_[pkg].insert(by);
  build_lib_purpose_[pkg] = Purpose::kBuild;
}
void ScanContext::run_lib(const std::string& pkg, const std::string& by) {
  run_libs_[pkg].insert(by);
  run_lib_purpose_[pkg] = Purpose::kBuild;
}

void ScanContext::run_lib(const std::string& pkg, const std::string& by, Evidence ev, Purpose purpose) {
  run_libs_[pkg].insert(by);
  auto [it, fresh] = run_lib_purpose_.try_emplace(pkg, purpose);
  merge_purpose(it->second, purpose, fresh);
  keep_evidence(run_lib_evidence_[pkg], std::move(ev));
}

void ScanContext::build_lib(const std::string& pkg, const std::string& by, Evidence ev, Purpose purpose) {
  build_libs_[pkg].insert(by);
  auto [it, fresh] = build_lib_purpose_.try_emplace(pkg, purpose);
  merge_purpose(it->second, purpose, fresh);
  keep_evidence(build_lib_evidence_[pkg], std::move(ev));
}

void ScanContext::egress(const std::string& host_in, EgressOrigin origin, const std::string& reason,
                         std::optional<Evidence> ev, const std::string& mirror_env, int port, Purpose purpose) {
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
  merge_purpose(h.purpose, purpose, fresh);
  if (h.mirror_env.empty()) h.mirror_env = mirror_env;
  // A lockfile names its registry once per package: one entry per file is
  // evidence enough. Config files keep every field (registry and auth line).
  auto same = [&](const Evidence& e) {
    return e.file == ev->file && (origin == EgressOrigin::kLockfile || e.field == ev->field);
  };
  if (ev && h.evidence.size() < kMaxEvidencePerHost && std::none_of(h.evidence.begin(), h.evidence.end(), same))
    h.evidence.push_back(std::move(*ev));
}

void ScanContext::egress_url(std::string_view url, EgressOrigin origin, const std::string& reason, Evidence ev,
                             Purpose purpose) {
  std::string host = url_host(url);  // "host" or "host:port"
  if (host.empty()) return;
  // Plain http is port 80, except in a lockfile: npm fetches an old
  // lockfile's http://registry.npmjs.org/… through its https registry.
  const bool http = str::lower(url.substr(0, 7)) == "http://";
  const int port = http && origin != EgressOrigin::kLockfile ? 80 : 443;
  egress(host, origin, reason, ev, {}, port, purpose);
  // Where the URL is known to redirect, the policy must let the redirect
  // through too. GitHub serves a release asset (…/releases/download/TAG/…,
  // …/releases/latest/download/…) from its asset hosts (release-assets since
  // 2025, objects before), a file under /raw/ from raw.githubusercontent.com
  // and a source archive (/archive/, /tarball/, /zipball/) from
  // codeload.github.com; rustup-init, from sh.rustup.rs, downloads the
  // toolchain from static.rust-lang.org (RUSTUP_DIST_SERVER).
  const std::string shown(url.substr(0, 100));
  if (host == "github.com") {
    // github.com/OWNER/REPO/<what>/…: what the path's third segment says.
    std::string_view path = url.substr(url.find("github.com") + 10);
    path = path.substr(0, path.find_first_of("?#"));
    auto seg = str::split(path.starts_with('/') ? path.substr(1) : path, '/');
    const std::string_view what = seg.size() > 3 ? seg[2] : std::string_view();
    if (what == "releases" && (seg[3] == "download" || (seg.size() > 4 && seg[3] == "latest" && seg[4] == "download")))
      for (const char* h : {"release-assets.githubusercontent.com", "objects.githubusercontent.com"})
        egress(h, origin, reason + " (a GitHub release asset, " + shown + ")", ev, {}, 443, purpose);
    if (what == "raw")
      egress("raw.githubusercontent.com", origin, reason + " (github.com serves " + shown + " from raw.githubusercontent.com)",
             ev, {}, 443, purpose);
    if (what == "archive" || what == "tarball" || what == "zipball")
      egress("codeload.github.com", origin,
             reason + " (github.com serves the source archive " + shown + " from codeload.github.com)", ev, {}, 443, purpose);
  }
  if (host == "sh.rustup.rs")
    egress("static.rust-lang.org", origin, "rustup (from " + shown + ") downloads the Rust toolchain", ev,
           "RUSTUP_DIST_SERVER", 443, purpose);
}

void ScanContext::egress_rejected(RejectedEgress r) {
  warn(r.file, r.entry + " " + r.message);
  egress_rejected_.push_back(std::move(r));
}

void ScanContext::command(const std::string& name, const std::string& reason) { commands_[name].insert(reason); }

void ScanContext::line_named(const std::string& tool, std::string line, Evidence why, std::string message,
                             bool versionless) {
  line_named_.try_emplace(tool, LineNamed{std::move(line), std::move(why), std::move(message), versionless});
}

// The packages follow the line of the provisioned version when it is one line
// ("=8.5.1", ">=8.5.0 <8.6.0"); a provision spanning lines (the whole support)
// leaves them on the support's lowest line (scan_context.hpp, line_named).
void ScanContext::follow_provisioned_line(const std::string& tool, const LineNamed& named, const RuntimeFloor* rf) {
  std::string line = named.line;
  std::optional<Range> support;
  if (rf && !rf->satisfying.empty())
    if (auto r = parse_npm_range(rf->satisfying); r && !r->is_empty()) support = *r;
  // Packages named for the archive's own line (no message: Debian's PHP 8.2)
  // keep it while the support admits it: that line is what Debian installs
  // (a CI matrix's newest 8.4 beside require.php ^8.2 changes nothing). A
  // support that excludes it (a lock whose packages need PHP 8.4) does not:
  // they follow the provisioned line, else the support's lowest.
  if (named.message.empty()) {
    auto at = parse_version(named.line);
    // Statements that contradict each other (a config.platform.php 8.1.0
    // below a lock's ^8.4: a pin outside the support) move nothing.
    if (!support || !at) return;
    if (auto pinned = parse_npm_range(rf->pin); !rf->pin.empty() && pinned && intersect(*pinned, *support).is_empty())
      return;
    if (support->contains(*at) || support->contains(Version{at->major, at->minor, 999999, ""})) return;
    if (auto f = support->floor()) line = std::to_string(f->major) + "." + std::to_string(f->minor);
  }
  std::string why = named.message.empty() ? "its supported versions (" + support->str() + ") exclude " + named.line
                                          : "the lowest line its support admits";
  if (rf && !rf->provision.empty())
    if (auto p = parse_npm_range(rf->provision); p && !p->is_empty() && p->floor()) {
      const Version f = *p->floor();
      const std::string mm = std::to_string(f.major) + "." + std::to_string(f.minor);
      auto within = parse_npm_range(">=" + mm + ".0 <" + std::to_string(f.major) + "." + std::to_string(f.minor + 1) + ".0");
      if (within && intersect(*p, *within).str() == p->str()) {
        line = mm;
        why = "the line the contract provisions";
      }
    }
  std::size_t renamed = 0;
  if (line != named.line) {
    const std::string from = tool + named.line + "-", to = tool + line + "-", own = tool + ":", bare = tool + "-";
    for (auto* libs : {&build_libs_, &run_libs_}) {
      for (const auto& [pkg, by] : std::map<std::string, std::set<std::string>>(*libs)) {
        const std::size_t cut = pkg.starts_with(from)                            ? from.size()
                                : named.versionless && pkg.starts_with(bare) ? bare.size()
                                                                             : 0;
        if (cut == 0 || !std::all_of(by.begin(), by.end(), [&](const std::string& b) { return b.starts_with(own); }))
          continue;
        rename_lib(libs == &build_libs_, pkg, to + pkg.substr(cut));
        ++renamed;
      }
    }
  }
  if (named.message.empty()) {
    if (renamed > 0)
      note(named.why.file, "the " + tool + " packages the project needs are named for " + tool + " " + line +
                               " (" + tool + line + "-*): " + why);
    return;
  }
  std::string message;
  for (std::size_t i = 0; i < named.message.size();) {
    if (named.message.compare(i, 6, "{line}") == 0) {
      message += line;
      i += 6;
    } else if (named.message.compare(i, 5, "{why}") == 0) {
      message += why;
      i += 5;
    } else {
      message += named.message[i++];
    }
  }
  warn(named.why.file, std::move(message));
}

// One need under another name: the needs, purposes and evidence of `from`
// join those of `to`.
void ScanContext::rename_lib(bool build, const std::string& from, const std::string& to) {
  auto& libs = build ? build_libs_ : run_libs_;
  auto& evidence = build ? build_lib_evidence_ : run_lib_evidence_;
  auto& purposes = build ? build_lib_purpose_ : run_lib_purpose_;
  auto old = libs.find(from);
  if (old == libs.end() || from == to) return;
  std::set<std::string> by = std::move(old->second);
  libs.erase(old);
  libs[to].insert(by.begin(), by.end());
  const Purpose purpose = purposes.count(from) ? purposes[from] : Purpose::kBuild;
  auto [it, fresh] = purposes.try_emplace(to, purpose);
  merge_purpose(it->second, purpose, fresh);
  for (auto& e : evidence[from]) keep_evidence(evidence[to], std::move(e));
  evidence.erase(from);
  purposes.erase(from);
}

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
    RuntimeFloor rf = floor_of(tool, tc);
    if (rf.constraints.empty()) continue;  // every statement was in a set-aside tree (a note says so)
    c.runtime_floors[tool] = std::move(rf);
  }
  for (auto& [tool, evidence] : needed_tools_)
    if (!c.runtime_floors.count(tool)) c.runtime_floors[tool].constraints = std::move(evidence);
  for (const auto& [tool, named] : line_named_) {
    auto rf = c.runtime_floors.find(tool);
    follow_provisioned_line(tool, named, rf == c.runtime_floors.end() ? nullptr : &rf->second);
  }
  // A name another distribution's apt has (a Dockerfile on Ubuntu's
  // firefox) is Debian 12's package (firefox-esr), said once per name.
  std::set<std::string> foreign;
  for (bool build : {true, false})
    for (const auto& [pkg, by] : std::map<std::string, std::set<std::string>>(build ? build_libs_ : run_libs_)) {
      const auto* debian = kb_.foreign_apt_name(pkg);
      if (!debian || debian->size() != 1) continue;
      auto& ev = (build ? build_lib_evidence_ : run_lib_evidence_)[pkg];
      if (!ev.empty() && foreign.insert(pkg).second)
        note(ev.front().file, ev.front().field + ": " + pkg + " is not a Debian 12 package (another distribution's " +
                                  "or an older Debian release's name); Debian 12's " + debian->front() +
                                  " is provisioned");
      rename_lib(build, pkg, debian->front());
    }
  std::sort(natives.begin(), natives.end(), [](const NativePackage& a, const NativePackage& b) {
    return std::tie(a.ecosystem, a.name) < std::tie(b.ecosystem, b.name);
  });
  // An `assumed` compile is reported but decides nothing (docs/contract.md).
  c.native_build_required = std::any_of(natives.begin(), natives.end(), [](const NativePackage& n) {
    return n.build == BuildKind::kCompile && n.certainty != Certainty::kAssumed && !n.optional;
  });
  // Whatever links a -dev package at build time loads its library at run
  // time, for the same need.
  for (const auto& [pkg, by] : std::map<std::string, std::set<std::string>>(build_libs_))
    if (const auto* run = kb_.runtime_packages(pkg))
      for (const auto& r : *run) {
        auto [it, fresh] = run_lib_purpose_.try_emplace(r, build_lib_purpose_[pkg]);
        merge_purpose(it->second, build_lib_purpose_[pkg], fresh);
        run_libs_[r].insert(by.begin(), by.end());
      }
  // A metapackage the repository names the package of itself (its
  // Dockerfile's mariadb-client beside a `mysql` call's default-mysql-client):
  // one need, under the repository's name.
  for (auto* libs : {&build_libs_, &run_libs_}) {
    for (const auto& [meta, by] : std::map<std::string, std::set<std::string>>(*libs)) {
      const auto* real = kb_.metapackage(meta);
      if (!real || real->size() != 1) continue;
      const std::string& named = real->front();
      if (build_libs_.count(named) || run_libs_.count(named)) rename_lib(libs == &build_libs_, meta, named);
    }
  }
  // What a package needs that Debian only recommends (an overlay installs
  // no recommends): git without ca-certificates cannot clone over https.
  for (auto* libs : {&build_libs_, &run_libs_}) {
    auto& evidence = libs == &build_libs_ ? build_lib_evidence_ : run_lib_evidence_;
    auto& purposes = libs == &build_libs_ ? build_lib_purpose_ : run_lib_purpose_;
    for (const auto& [pkg, by] : std::map<std::string, std::set<std::string>>(*libs)) {
      const auto* wanted = kb_.needed_recommends(pkg);
      if (!wanted) continue;
      for (const auto& r : *wanted) {
        (*libs)[r].insert("deb:" + pkg);
        auto [it, fresh] = purposes.try_emplace(r, purposes[pkg]);
        merge_purpose(it->second, purposes[pkg], fresh);
        auto& ev = evidence[r];
        if (auto from = evidence.find(pkg); from != evidence.end() && !from->second.empty() && ev.size() < kRunLibEvidence)
          ev.push_back(from->second.front());
      }
    }
  }
  c.native_packages = std::move(natives);
  auto with_evidence = [](const std::map<std::string, std::set<std::string>>& libs,
                          const std::map<std::string, std::vector<Evidence>>& evidence,
                          const std::map<std::string, Purpose>& purposes, std::vector<SystemLib>& out) {
    for (const auto& [pkg, by] : libs) {
      auto ev = evidence.find(pkg);
      auto p = purposes.find(pkg);
      out.push_back({pkg, {by.begin(), by.end()}, ev == evidence.end() ? std::vector<Evidence>{} : ev->second,
                     p == purposes.end() ? Purpose::kBuild : p->second});
    }
  };
  with_evidence(build_libs_, build_lib_evidence_, build_lib_purpose_, c.build_libs);
  with_evidence(run_libs_, run_lib_evidence_, run_lib_purpose_, c.run_libs);
  for (auto& [key, h] : egress_) c.egress_hosts.push_back(std::move(h));
  c.egress_rejected = std::move(egress_rejected_);
  for (auto& [name, why] : commands_) c.required_commands.push_back({name, {why.begin(), why.end()}});
  c.workspaces = std::move(workspaces_);
  c.include.assign(include_.begin(), include_.end());
  std::sort(c.workspaces.begin(), c.workspaces.end(),
            [](const Workspace& a, const Workspace& b) { return std::tie(a.path, a.manager) < std::tie(b.path, b.manager); });
  for (const auto& [file, date] : kb_.dates()) c.knowledge[file] = date;
  c.warnings = fs_.take_warnings();
  c.notes = fs_.take_notes();
  scrub_credentials(c);
  return c;
}

namespace {

std::string where(const Constraint& k) { return k.source.file + " " + k.source.field + "=" + str::quote(k.source.value, 60); }

// The pin a scope selects when its pins disagree: the team's declaration in
// .mac/project.yaml, then a version file, then a Dockerfile's FROM or RUN (the
// project states its version in one place; the image follows it).
std::optional<std::size_t> chosen_pin(const std::vector<std::size_t>& pins, const std::vector<Constraint>& cs) {
  auto rank = [&](std::size_t i) {
    if (cs[i].source.file.ends_with(".mac/project.yaml")) return 0;
    return cs[i].source.field == "FROM" || cs[i].source.field.starts_with("RUN ") ? 2 : 1;
  };
  std::optional<std::size_t> best;
  for (std::size_t i : pins)
    if (!best || rank(i) < rank(*best)) best = i;
  return best;
}

}  // namespace

// The model of docs/contract.md ("Runtime versions"): the root project's
// support is the floor; a pin is the version chosen; a tested version is
// one CI runs. Statements of sub-projects are their own scope's; statements
// in set-aside trees (examples, docs, packaging) are reported, not used.
RuntimeFloor ScanContext::floor_of(const std::string& tool, const ToolConstraints& tc) {
  RuntimeFloor rf;
  const auto& cs = tc.constraints;
  std::vector<std::size_t> used;
  std::vector<std::string> aside;
  for (std::size_t i = 0; i < cs.size(); ++i) {
    if (set_aside_tree(cs[i].source.file)) aside.push_back(cs[i].source.file);
    else used.push_back(i);
  }
  if (!aside.empty()) {
    std::sort(aside.begin(), aside.end());
    aside.erase(std::unique(aside.begin(), aside.end()), aside.end());
    note(aside.front(), tool + " versions stated in " + std::to_string(aside.size()) +
                            " file(s) of example, documentation or packaging trees (" +
                            str::join(std::vector<std::string>(aside.begin(), aside.begin() + std::min<std::size_t>(aside.size(), 3)), ", ") +
                            (aside.size() > 3 ? ", …" : "") + ") are not the repository's own; not used");
  }
  for (std::size_t i : used) rf.constraints.push_back(cs[i]);
  if (used.empty()) return rf;

  auto pick = [&](ConstraintKind kind, auto&& scope_ok) {
    std::vector<std::size_t> out;
    for (std::size_t i : used)
      if (cs[i].kind == kind && scope_ok(cs[i].scope) && tc.ranges[i]) out.push_back(i);
    return out;
  };
  auto root = [](const std::string& s) { return s == "."; };
  auto sub = [](const std::string& s) { return s != "."; };
  auto meet = [&](const std::vector<std::size_t>& idx) {
    Range all = Range::all();
    for (std::size_t i : idx) all = intersect(all, *tc.ranges[i]);
    return all;
  };
  auto join = [&](const std::vector<std::size_t>& idx) {  // each interval once
    Range u{{}};
    std::set<std::string> seen;
    for (std::size_t i : idx)
      for (const auto& iv : tc.ranges[i]->any_of)
        if (seen.insert(Range{{iv}}.str()).second) u.any_of.push_back(iv);
    return u;
  };

  // The support: the root's declared range; without one, what the
  // sub-projects declare together; then the root's pin; then a sub-project's
  // pin; then the versions CI tests; then a sub-project's builder image.
  const auto root_support = pick(ConstraintKind::kSupport, root);
  const auto sub_support = pick(ConstraintKind::kSupport, sub);
  const auto root_pins = pick(ConstraintKind::kPin, root);
  const auto sub_pins = pick(ConstraintKind::kPin, sub);
  const auto tested = pick(ConstraintKind::kTested, root);
  const auto sub_tested = pick(ConstraintKind::kTested, sub);
  // A statement of an image (a Dockerfile's FROM or RUN `npm install -g
  // yarn@1.22.22`, a devcontainer, a Heroku buildpack's configuration of the
  // app's build), not of a CI job.
  auto image_statement = [&](std::size_t i) {
    const Evidence& src = cs[i].source;
    return src.field == "FROM" || src.field.starts_with("RUN ") || src.file.find("devcontainer") != std::string::npos ||
           src.file.ends_with("_buildpack.config");
  };
  // The root's pin: what its pins agree on (.nvmrc "20" and .node-version
  // "20.11.1" pin 20.11.1); when they disagree, a version file's before an
  // image's.
  std::optional<Range> pin;
  std::vector<std::size_t> pinned_by;
  const bool declared = std::any_of(root_pins.begin(), root_pins.end(), [&](std::size_t i) {
    return cs[i].source.file.ends_with(".mac/project.yaml");
  });
  if (!root_pins.empty()) {
    if (Range m = meet(root_pins); !m.is_empty() && !declared) {
      pin = m;
      pinned_by = root_pins;
    } else {
      // Pins that disagree: one CI tests comes first (a Dockerfile's 1.18.4,
      // which CI runs, beside a stale .tool-versions 1.17.3). CI's versions
      // are joined once, so each pin is one intersection.
      std::vector<std::size_t> ci;
      for (std::size_t t : tested)
        if (!image_statement(t)) ci.push_back(t);
      const Range ci_versions = join(ci);
      std::vector<std::size_t> confirmed;
      for (std::size_t i : root_pins)
        if (!ci.empty() && !intersect(*tc.ranges[i], ci_versions).is_empty()) confirmed.push_back(i);
      const bool by_ci = !declared && !confirmed.empty() && confirmed.size() < root_pins.size();
      pinned_by = {*chosen_pin(by_ci ? confirmed : root_pins, cs)};
      pin = *tc.ranges[pinned_by.front()];
      if (by_ci && *chosen_pin(root_pins, cs) != pinned_by.front())
        rf.conflicts.push_back(where(cs[*chosen_pin(root_pins, cs)]) + " pins " + cs[*chosen_pin(root_pins, cs)].range +
                               ", which no CI job tests; " + where(cs[pinned_by.front()]) + " pins " + pin->str() +
                               ", which CI tests");
    }
  }
  // Where the test suite runs comes first: CI's jobs; then a development
  // environment's image (a devcontainer, CodeSandbox), where people run it;
  // then a production Dockerfile's builder stage, a version the image is
  // only built with (excalidraw tests on 20, offers CodeSandbox on 24 and
  // builds its image on 24: 20).
  std::vector<std::size_t> ci_tested, dev_tested, builder_tested;
  for (std::size_t i : tested)
    (!image_statement(i) ? ci_tested : development(cs[i].source.file) ? dev_tested : builder_tested).push_back(i);
  // A pin no CI job tests, where every CI job tests one same version (one
  // release or line, not a matrix) the declared support admits and the
  // repository's image is built on it too, is stale (mindwendel's
  // .tool-versions 1.17.3 beside CI's and its Dockerfile's 1.18.4): it is
  // reported, and neither bounds the support nor is provisioned. CI alone does not outvote a pin (a lint job's Node 18
  // beside .tool-versions' 20.19.5), and a team's declaration
  // (.mac/project.yaml) is never stale.
  std::optional<Range> ci_only;
  if (pin && !declared && !ci_tested.empty()) {
    const Range& first = *tc.ranges[ci_tested.front()];
    const bool one = first.any_of.size() == 1 &&
                     std::all_of(ci_tested.begin(), ci_tested.end(),
                                 [&](std::size_t i) { return tc.ranges[i]->str() == first.str(); });
    const Range declared_support = !root_support.empty()  ? meet(root_support)
                                   : !sub_support.empty() ? meet(sub_support)
                                                          : Range::all();
    const bool image_agrees = std::any_of(tested.begin(), tested.end(), [&](std::size_t i) {
      return image_statement(i) && !intersect(*tc.ranges[i], first).is_empty() &&
             intersect(*tc.ranges[i], *pin).is_empty();
    });
    if (one && image_agrees && intersect(*pin, first).is_empty() && intersect(first, declared_support).floor())
      ci_only = intersect(first, declared_support);
  }
  std::optional<Range> support;
  if (!root_support.empty()) support = meet(root_support);
  else if (!sub_support.empty()) support = meet(sub_support);
  else if (pin && !ci_only) support = *pin;
  else if (ci_only) support = *ci_only;  // the stale pin's place: what CI and the image run
  else if (!sub_pins.empty()) support = join(sub_pins);  // sub-projects pinned apart: any of theirs
  else if (!tested.empty()) support = join(tested);
  else if (!sub_tested.empty()) support = join(sub_tested);  // a sub-project's builder image, at the last
  if (support && !support->is_empty()) {
    if (auto f = support->floor()) rf.floor = f->str();
    rf.satisfying = support->str();
  } else if (support && !(root_support.empty() && sub_support.empty())) {
    // The root's own support ranges exclude each other: no version is
    // supported. Say which, once; the floor is the highest lower bound.
    std::optional<Version> highest;
    for (std::size_t i : root_support.empty() ? sub_support : root_support)
      if (auto f = tc.ranges[i]->floor(); f && (!highest || *highest < *f)) highest = f;
    if (highest) rf.floor = highest->str();
    std::vector<std::string> parts;
    for (std::size_t i : root_support.empty() ? sub_support : root_support)
      parts.push_back(where(cs[i]) + " (" + cs[i].range + ")");
    rf.conflicts.push_back("no version satisfies every declared range: " + str::join(parts, ", "));
  }

  // Tested versions, each alternative once, lowest first.
  auto alternatives_of = [&](const std::vector<std::size_t>& idx) {
    std::vector<Range> out;
    for (std::size_t i : idx)
      for (const auto& iv : tc.ranges[i]->any_of) out.push_back(Range{{iv}});
    std::sort(out.begin(), out.end(), [](const Range& a, const Range& b) {
      return a.floor().value_or(Version{}) < b.floor().value_or(Version{});
    });
    return out;
  };
  for (const auto& a : alternatives_of(tested))
    if (rf.tested.empty() || rf.tested.back() != a.str()) rf.tested.push_back(a.str());

  // The version to provision.
  const Range in_support = support && !support->is_empty() ? *support : Range::all();
  if (pin) rf.pin = pin->str();
  if (ci_only) {
    rf.provision = ci_only->str();
    rf.provision_reason = "the version every CI job tests (" + where(cs[ci_tested.front()]) + "); the pin " +
                          where(cs[pinned_by.front()]) + " is tested by none";
    rf.conflicts.push_back(where(cs[pinned_by.front()]) + " pins " + pin->str() + ", which no CI job tests; CI tests " +
                           tc.ranges[ci_tested.front()]->str() + ", which is provisioned");
  } else if (pin && !intersect(*pin, in_support).is_empty()) {
    rf.provision = intersect(*pin, in_support).str();
    std::vector<std::string> by;
    for (std::size_t i : pinned_by) by.push_back(where(cs[i]));
    rf.provision_reason = "the version " + str::join(by, " and ") + " pin" + (by.size() == 1 ? "s" : "");
    // A file's pin that names a line, not a release (composer.lock's plugin
    // API 2.9, an .nvmrc "20"), with one exact release of it tested (Lychee's
    // build stage on composer:2.10.2): that release. An image's floating tag
    // (node:20-alpine) means the line's newest, and stays the line.
    const bool file_pin = std::none_of(pinned_by.begin(), pinned_by.end(), image_statement);
    std::set<std::string> exact;
    std::size_t exact_by = 0;
    const Range line = intersect(*pin, in_support);
    for (std::size_t i : tested)
      for (const auto& iv : tc.ranges[i]->any_of) {  // a matrix's versions one by one
        Range r = intersect(Range{{iv}}, line);
        if (r.any_of.size() == 1 && !r.is_empty() && r.str().starts_with("=") && exact.insert(r.str()).second)
          exact_by = i;
        if (exact.size() > 1) break;
      }
    if (file_pin && exact.size() == 1 && !rf.provision.starts_with("=")) {
      rf.provision = *exact.begin();
      rf.provision_reason += ", at the release " + where(cs[exact_by]) + " runs within it";
    }
  } else {
    // A development environment's version that CI tests too is the one the
    // maintainers work with and CI confirms (openstreetmap-website develops
    // on 3.3 and tests 3.3, 3.4 and 4.0): it comes first. One CI does not
    // test (excalidraw's CodeSandbox 24 beside CI's 20) does not.
    const auto ci_alternatives = alternatives_of(ci_tested), dev_alternatives = alternatives_of(dev_tested);
    // Java: the release the build compiles for — the support's floor, from
    // maven.compiler.release, sourceCompatibility or the enforcer — when CI
    // tests it. `javac --release N` targets N, and N is the JDK the build is
    // tested on first (jitsi-videobridge compiles for 17 and tests 17 and 21;
    // OpenRefine compiles for 21 and admits up to 26).
    if (tool == "java" && support && !support->is_empty() && support->floor())
      for (const auto& c : ci_alternatives) {
        const Version f = *support->floor();
        Range line = intersect(c, Range::at_least(Version{f.major, 0, 0, ""}));
        line = intersect(line, *parse_npm_range("<" + std::to_string(f.major + 1) + ".0.0"));
        line = intersect(line, in_support);
        if (line.is_empty() || !line.floor() || line.floor()->major != f.major) continue;
        rf.provision = line.str();
        rf.provision_reason = "the Java release the build compiles for, which CI tests";
        break;
      }
    for (auto d = dev_alternatives.rbegin(); d != dev_alternatives.rend() && rf.provision.empty(); ++d)
      for (auto c = ci_alternatives.rbegin(); c != ci_alternatives.rend(); ++c) {  // newest first
        Range r = intersect(intersect(*d, *c), in_support);
        if (r.is_empty() || !r.floor()) continue;
        rf.provision = r.str();
        rf.provision_reason = "the version a development environment has, which CI tests too";
        break;
      }
    for (const auto* group : {&ci_tested, &dev_tested, &builder_tested}) {
      if (!rf.provision.empty()) break;
      // Past CI, when the root states nothing of its own about the tool: the
      // pin the sub-projects agree on (commafeed's client, whose pom installs
      // Node 24.19.0 and npm 12.0.2, is where Node runs). A root that declares
      // its support keeps its floor (a monorepo's apps pinning node:lts).
      if (group == &dev_tested && !sub_pins.empty() && root_support.empty()) {
        Range r = intersect(meet(sub_pins), in_support);
        if (!r.is_empty() && r.floor()) {
          rf.provision = r.str();
          rf.provision_reason = "the version the sub-projects that pin one pin";
          break;
        }
      }
      auto alternatives = alternatives_of(*group);
      for (auto a = alternatives.rbegin(); a != alternatives.rend() && rf.provision.empty(); ++a) {
        Range r = intersect(*a, in_support);
        if (r.is_empty() || !r.floor()) continue;
        rf.provision = r.str();
        rf.provision_reason = group == &ci_tested    ? "the newest version CI tests within the supported range"
                              : group == &dev_tested ? "the newest version a development environment has within "
                                                       "the supported range"
                                                     : "the newest version the image's builder stages use within "
                                                       "the supported range";
      }
      if (!rf.provision.empty()) break;
    }
    if (rf.provision.empty())
      rf.provision_reason = rf.satisfying.empty() ? "no version is stated"
                                                  : "the lowest release in the supported range a source has";
  }

  // A pin outside its own scope's support is the one conflict worth a line.
  std::set<std::string> scopes;
  for (std::size_t i : used) scopes.insert(cs[i].scope);
  for (const auto& scope : scopes) {
    auto here = [&](const std::string& s) { return s == scope; };
    auto s_support = pick(ConstraintKind::kSupport, here);
    auto s_pins = pick(ConstraintKind::kPin, here);
    std::optional<Range> sr;
    if (!s_support.empty()) sr = meet(s_support);
    else if (scope != "." && support) sr = support;  // a sub-project without its own range follows the root's
    for (std::size_t i : s_pins)
      if (sr && !sr->is_empty() && intersect(*tc.ranges[i], *sr).is_empty())
        rf.conflicts.push_back(where(cs[i]) + " pins " + cs[i].range + ", outside " +
                               (scope == "." ? std::string("the project's") : scope + "'s") + " supported range " +
                               sr->str() + (s_support.empty() ? "" : " (" + where(cs[s_support.front()]) + ")"));
    if (scope == "." || (s_support.empty() && s_pins.empty())) continue;
    ScopedRequirement req{scope, {}, {}, {}};
    if (sr && !s_support.empty() && !sr->is_empty()) {  // sr is this scope's own support here
      req.satisfying = sr->str();
      if (auto f = sr->floor()) req.floor = f->str();
    }
    if (auto p = chosen_pin(s_pins, cs)) req.pin = cs[*p].range;
    if (!req.satisfying.empty() || !req.pin.empty()) rf.scopes.push_back(std::move(req));
  }
  return rf;
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

}  // namespace strata::contract
