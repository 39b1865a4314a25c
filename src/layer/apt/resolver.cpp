#include "layer/apt/resolver.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "layer/apt/candidate_policy.hpp"
#include "layer/debian/version.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr int kInstalledPriority = 100;
constexpr unsigned kMaxDepth = 3000;

struct Version {
  const Package* pkg = nullptr;
  int priority = 0;                  // max over origins (installed: at least 100)
  std::vector<std::size_t> origins;  // in add order
  bool installed = false;
};

// apt's "package": a (name, architecture) pair; arch:all counts as native.
struct Entry {
  std::string name;
  std::string arch;
  std::vector<Version> versions;
  int installed = -1;  // index into versions
  int candidate = -1;
  std::size_t seq = 0;  // order of first appearance (apt's package ID)
};

struct Provide {
  std::size_t entry;
  int version;
  const Relation* rel;
};

// Where packages come from, in the order they were added (apt's source
// order, then the status): an index read by name, or the installed set.
struct Source {
  std::shared_ptr<const NameIndex> index;  // null: the installed packages below
  std::size_t origin = 0;
  int priority = 0;
  std::size_t first_seq = 0;  // the seq of its first package
  std::vector<const Package*> installed;
  // Positions in `installed` of the packages named so, providing a name,
  // with Conflicts or Breaks on a name.
  std::unordered_map<std::string, std::vector<std::size_t>> named, providing, negating;
};

enum class Select { kCandidate, kInstall, kInstalled, kCandidateOrInstall };

// Sets of names looked up by string_view without making a string (the
// walk asks "loaded yet?" for every relation it follows).
struct NameHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using NameSet = std::unordered_set<std::string, NameHash, std::equal_to<>>;

// Adds `name`; false when it was there.
bool first_time(NameSet& set, std::string_view name) {
  if (set.find(name) != set.end()) return false;
  set.emplace(name);
  return true;
}

}  // namespace

struct Resolver::Impl {
  ResolveOptions options;
  std::deque<Package> storage;
  // Entries are made when a name is first looked at (ensure_name): all of
  // its architectures and versions at once, from every source, so each is
  // complete when made. A deque: references stay valid as it grows.
  std::deque<Entry> entries;
  std::vector<Source> sources;
  std::size_t next_seq = 0;
  // Names whose entries, providers, or Conflicts/Breaks holders are loaded.
  NameSet loaded, providers_loaded, negative_loaded;
  std::optional<Error> load_error;  // a damaged index record, reported by resolve()
  std::unordered_map<std::string, std::vector<std::size_t>> by_name;
  std::unordered_map<std::string, std::vector<Provide>> providers;
  // Installed packages with an upgrade candidate, by the candidate's source
  // package name (apt's "upgrade by source package", see upgrade_siblings).
  std::unordered_map<std::string, std::vector<std::size_t>> upgradable_by_source;
  // Entries whose installed or candidate version has Conflicts/Breaks on a
  // name, by that name: the reverse half of conflicting() looks only here.
  std::unordered_map<std::string, std::vector<std::size_t>> negative_on;
  std::size_t origins = 0;
  std::vector<int> origin_priority;

  // Per-run state.
  std::vector<char> marked;  // marked for install (at the candidate)
  std::vector<std::string> notes;

  std::string entry_arch(const Package& p) const {
    return p.architecture == "all" ? options.native_arch : p.architecture;
  }
  bool arch_configured(const std::string& arch) const {
    if (arch == "all" || arch == options.native_arch) return true;
    return std::find(options.foreign_archs.begin(), options.foreign_archs.end(), arch) !=
           options.foreign_archs.end();
  }

  // apt's package lookup by (name, architecture). Names have one or a few
  // architectures, so the per-name list is scanned rather than building a
  // "name:arch" key string per lookup.
  std::optional<std::size_t> find_entry(std::string_view name, std::string_view arch) {
    ensure_name(name);
    auto it = by_name.find(std::string(name));
    if (it == by_name.end()) return std::nullopt;
    for (std::size_t id : it->second)
      if (entries[id].arch == arch) return id;
    return std::nullopt;
  }

  // Makes the entries of `name` (once): every version of every architecture
  // from every source in the order they were added, each entry numbered by
  // its first package's place across the sources (apt's package ID order,
  // which the eager model had), its candidate chosen and its provides and
  // Conflicts/Breaks registered as compute_candidates did for all.
  void ensure_name(std::string_view name_view) {
    if (!first_time(loaded, name_view)) return;
    std::string name(name_view);
    std::vector<std::size_t> made;
    auto entry = [&](const Package& p, std::size_t seq) {
      std::string arch = entry_arch(p);
      for (std::size_t id : made)
        if (entries[id].arch == arch) return id;
      std::size_t id = entries.size();
      entries.push_back(Entry{name, arch, {}, -1, -1, seq});
      marked.push_back(0);
      by_name[name].push_back(id);
      made.push_back(id);
      return id;
    };
    for (const Source& src : sources) {
      if (src.index) {
        auto recs = src.index->named(name);
        for (std::uint32_t k = 0; k < recs.size(); ++k) {
          std::uint32_t rec = recs[k];
          auto p = src.index->package(rec);
          if (!p) {
            if (!load_error) load_error = p.error();
            continue;
          }
          if (!arch_configured(p->architecture)) continue;
          const Package* stored = &storage.emplace_back(std::move(*p));
          add_version(entry(*stored, src.first_seq + rec), stored, src.priority, src.origin);
        }
        continue;
      }
      auto it = src.named.find(name);
      if (it == src.named.end()) continue;
      for (std::size_t i : it->second) {
        const Package* stored = src.installed[i];
        std::size_t e = entry(*stored, src.first_seq + i);
        int v = add_version(e, stored, kInstalledPriority, std::nullopt);
        entries[e].versions[v].installed = true;
        entries[e].installed = v;
      }
    }
    for (std::size_t id : made) {
      compute_candidate(entries[id]);
      register_relations(id);
    }
  }

  // Loads every package that may provide `name` (any version, any source),
  // so providers[name] is complete, in the eager order (entry, installed
  // version first, provides order).
  void ensure_providers(std::string_view name_view) {
    if (!first_time(providers_loaded, name_view)) return;
    std::string name(name_view);
    for (const Source& src : sources) {
      if (src.index) {
        auto recs = src.index->providing(name);
        for (std::uint32_t k = 0; k < recs.size(); ++k) ensure_name(src.index->record_name(recs[k]));
      } else if (auto it = src.providing.find(name); it != src.providing.end()) {
        for (std::size_t i : it->second) ensure_name(src.installed[i]->name);
      }
    }
    auto it = providers.find(name);
    if (it == providers.end()) return;
    std::stable_sort(it->second.begin(), it->second.end(), [&](const Provide& a, const Provide& b) {
      if (a.entry != b.entry) return entries[a.entry].seq < entries[b.entry].seq;
      bool ia = a.version == entries[a.entry].installed, ib = b.version == entries[b.entry].installed;
      return ia && !ib;
    });
  }

  // Loads every package with Conflicts or Breaks on `name`, so
  // negative_on[name] is complete.
  void ensure_negative(std::string_view name_view) {
    if (!first_time(negative_loaded, name_view)) return;
    std::string name(name_view);
    for (const Source& src : sources) {
      if (src.index) {
        auto recs = src.index->negating(name);
        for (std::uint32_t k = 0; k < recs.size(); ++k) ensure_name(src.index->record_name(recs[k]));
      } else if (auto it = src.negating.find(name); it != src.negating.end()) {
        for (std::size_t i : it->second) ensure_name(src.installed[i]->name);
      }
    }
  }

  // Entry ids in apt's package ID order.
  void by_seq(std::vector<std::size_t>& ids) const {
    std::sort(ids.begin(), ids.end(), [&](std::size_t a, std::size_t b) { return entries[a].seq < entries[b].seq; });
  }

  int add_version(std::size_t e, const Package* p, int priority, std::optional<std::size_t> origin) {
    auto& versions = entries[e].versions;
    for (std::size_t i = 0; i < versions.size(); ++i) {
      if (versions[i].pkg->version == p->version) {
        versions[i].priority = std::max(versions[i].priority, priority);
        if (origin) versions[i].origins.push_back(*origin);
        return static_cast<int>(i);
      }
    }
    Version v{p, priority, {}, false};
    if (origin) v.origins.push_back(*origin);
    versions.push_back(std::move(v));
    return static_cast<int>(versions.size() - 1);
  }

  void compute_candidate(Entry& e) const {
    e.candidate = apt_candidate(
        e.versions.size(), [&](int i) -> const std::string& { return e.versions[i].pkg->version; },
        [&](int i) { return e.versions[i].priority; }, e.installed);
  }

  // The provides and Conflicts/Breaks of an entry's installed and candidate
  // versions, registered by the names they are on.
  void register_relations(std::size_t id) {
    const Entry& e = entries[id];
    std::vector<int> vs;
    if (e.installed >= 0) vs.push_back(e.installed);
    if (e.candidate >= 0 && e.candidate != e.installed) vs.push_back(e.candidate);
    for (int vi : vs) {
      const Package& p = *e.versions[vi].pkg;
      for (const auto& rel : p.provides) providers[rel.name].push_back(Provide{id, vi, &rel});
      for (const auto* list : {&p.conflicts, &p.breaks})
        for (const auto& rel : *list) {
          auto& v = negative_on[rel.name];
          if (v.empty() || v.back() != id) v.push_back(id);
        }
    }
  }

  // Installed packages with an upgrade candidate, by the candidate's source
  // (every installed name is loaded first).
  void index_upgradable() {
    std::vector<std::size_t> ids;
    for (std::size_t id = 0; id < entries.size(); ++id) {
      const Entry& e = entries[id];
      if (e.installed >= 0 && e.candidate >= 0 && e.candidate != e.installed) ids.push_back(id);
    }
    by_seq(ids);
    for (std::size_t id : ids) upgradable_by_source[entries[id].versions[entries[id].candidate].pkg->source].push_back(id);
  }

  int selected(std::size_t e, Select s) const {
    const Entry& en = entries[e];
    switch (s) {
      case Select::kCandidate: return en.candidate;
      case Select::kInstalled: return en.installed;
      case Select::kInstall: return marked[e] ? en.candidate : en.installed;
      case Select::kCandidateOrInstall: return -2;  // handled by callers
    }
    return -1;
  }

  const Package& pkg(std::size_t e, int v) const { return *entries[e].versions[v].pkg; }

  // Versions selected by `s` that satisfy `r` written by a package of arch
  // `from_arch`. Negative relations (Conflicts, Breaks) apply to every
  // architecture and never to the package itself (`self`).
  void targets(const Relation& r, const std::string& from_arch, Select s, bool negative, std::size_t self,
               std::vector<std::pair<std::size_t, int>>& out) {
    ensure_name(r.name);
    ensure_providers(r.name);
    auto real = by_name.find(r.name);
    if (real != by_name.end()) {
      for (std::size_t e : real->second) {
        int v = selected(e, s);
        if (v < 0) continue;
        if (negative && e == self) continue;
        const Package& p = pkg(e, v);
        const std::string& arch = entries[e].arch;
        bool arch_ok;
        if (negative) arch_ok = r.arch.empty() || r.arch == "any" || r.arch == arch;
        else if (r.arch.empty()) arch_ok = arch == from_arch || p.multi_arch == MultiArch::kForeign;
        else if (r.arch == "any") arch_ok = p.multi_arch == MultiArch::kAllowed || p.multi_arch == MultiArch::kForeign;
        else arch_ok = arch == r.arch;
        if (!arch_ok) continue;
        if (!version_satisfies(p.version, r.op, r.version)) continue;
        out.emplace_back(e, v);
      }
    }
    auto prov = providers.find(r.name);
    if (prov == providers.end()) return;
    for (const Provide& pv : prov->second) {
      if (selected(pv.entry, s) != pv.version) continue;
      if (negative && pv.entry == self) continue;
      const Package& p = pkg(pv.entry, pv.version);
      const std::string& arch = entries[pv.entry].arch;
      bool arch_ok;
      if (negative) arch_ok = r.arch.empty() || r.arch == "any" || r.arch == arch;
      else if (r.arch.empty()) arch_ok = arch == from_arch || p.multi_arch == MultiArch::kForeign;
      else if (r.arch == "any") arch_ok = p.multi_arch == MultiArch::kForeign;
      else arch_ok = arch == r.arch;
      if (!arch_ok) continue;
      if (r.op != RelOp::kAny &&
          (pv.rel->op != RelOp::kEq || !version_satisfies(pv.rel->version, r.op, r.version)))
        continue;
      if (std::find(out.begin(), out.end(), std::pair{pv.entry, pv.version}) == out.end())
        out.emplace_back(pv.entry, pv.version);
    }
  }

  bool group_satisfied(const OrGroup& g, const std::string& from_arch, Select s, std::size_t self) {
    std::vector<std::pair<std::size_t, int>> t;
    for (const auto& r : g) {
      t.clear();
      if (s == Select::kCandidateOrInstall) {
        targets(r, from_arch, Select::kInstall, false, self, t);
        targets(r, from_arch, Select::kCandidate, false, self, t);
      } else {
        targets(r, from_arch, s, false, self, t);
      }
      if (!t.empty()) return true;
    }
    return false;
  }

  // apt's CompareProviders: true when a should be tried before b.
  bool prefer(std::pair<std::size_t, int> a, std::pair<std::size_t, int> b, const std::string& target) const {
    const Entry& ea = entries[a.first];
    const Entry& eb = entries[b.first];
    const Package& pa = pkg(a.first, a.second);
    const Package& pb = pkg(b.first, b.second);
    if (ea.name == eb.name && ea.arch != eb.arch &&
        (pa.multi_arch == MultiArch::kSame || pb.multi_arch == MultiArch::kSame)) {
      auto any_installed = [&](const Entry& e, const Package& p) {
        if (p.multi_arch != MultiArch::kSame) return false;
        for (std::size_t id : by_name.at(e.name))
          if (entries[id].installed >= 0) return true;
        return false;
      };
      bool ia = any_installed(ea, pa), ib = any_installed(eb, pb);
      if (ia != ib) return ia;
    }
    bool ia = ea.installed >= 0, ib = eb.installed >= 0;
    if (ia != ib) return ia;
    if (ea.name != eb.name) {
      if (ea.name == target) return true;
      if (eb.name == target) return false;
    }
    if (pa.essential != pb.essential) return pa.essential;
    if (pa.important != pb.important) return pa.important;
    if (ea.arch != eb.arch) {
      if (ea.arch == options.native_arch) return true;
      if (eb.arch == options.native_arch) return false;
      for (const auto& f : options.foreign_archs) {
        if (f == ea.arch) return true;
        if (f == eb.arch) return false;
      }
    }
    if (pa.priority != pb.priority) return pa.priority < pb.priority;
    return ea.seq > eb.seq;
  }

  // apt's getAllPossibleSolutions(…, CANDIDATE, sorted): per member, the
  // candidate versions that satisfy it in provider order; then versions of
  // installed packages before new installs across the whole group.
  std::vector<std::pair<std::size_t, int>> solutions(const OrGroup& g, const std::string& from_arch,
                                                     std::size_t self) {
    std::vector<std::pair<std::size_t, int>> upgrade, fresh;
    for (const auto& r : g) {
      std::vector<std::pair<std::size_t, int>> t;
      targets(r, from_arch, Select::kCandidate, false, self, t);
      std::stable_sort(t.begin(), t.end(), [&](auto a, auto b) { return prefer(a, b, r.name); });
      for (auto& v : t) (entries[v.first].installed >= 0 ? upgrade : fresh).push_back(v);
    }
    upgrade.insert(upgrade.end(), fresh.begin(), fresh.end());
    std::vector<std::pair<std::size_t, int>> out;
    for (auto& v : upgrade)
      if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    return out;
  }

  // Marked or kept packages whose Conflicts/Breaks hit version v of entry e,
  // or which v's Conflicts/Breaks hit.
  std::vector<std::size_t> conflicting(std::size_t e, int v) {
    std::vector<std::size_t> out;
    const Package& p = pkg(e, v);
    std::vector<std::pair<std::size_t, int>> t;
    for (const auto* list : {&p.conflicts, &p.breaks})
      for (const auto& r : *list) targets(r, entries[e].arch, Select::kInstall, true, e, t);
    for (auto& x : t) out.push_back(x.first);
    // Reverse: installed-state packages that conflict with v (only those
    // with a Conflicts/Breaks on v's name or on a name v provides).
    std::vector<std::size_t> candidates;
    for (const std::string* n : [&] {
           std::vector<const std::string*> names{&p.name};
           for (const auto& pr : p.provides) names.push_back(&pr.name);
           return names;
         }()) {
      ensure_negative(*n);
      if (auto it = negative_on.find(*n); it != negative_on.end())
        candidates.insert(candidates.end(), it->second.begin(), it->second.end());
    }
    by_seq(candidates);
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (std::size_t o : candidates) {
      if (o == e) continue;
      int ov = selected(o, Select::kInstall);
      if (ov < 0) continue;
      const Package& op = pkg(o, ov);
      if (op.conflicts.empty() && op.breaks.empty()) continue;
      for (const auto* list : {&op.conflicts, &op.breaks})
        for (const auto& r : *list) {
          if (r.name != p.name) {
            bool provided = false;
            for (const auto& pr : p.provides) provided |= pr.name == r.name;
            if (!provided) continue;
          }
          std::vector<std::pair<std::size_t, int>> hit;
          with_marked(e, v, [&] { targets(r, entries[o].arch, Select::kInstall, true, o, hit); });
          for (auto& h : hit)
            if (h.first == e) out.push_back(o);
        }
    }
    by_seq(out);
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  template <class F>
  void with_marked(std::size_t e, int v, F&& f) {
    char old = marked[e];
    marked[e] = (v == entries[e].candidate) ? 1 : 0;
    f();
    marked[e] = old;
  }

  // apt's IsInstallOkMultiArchSameVersionSynced: a M-A: same candidate must
  // have the version of the candidates of its installed other-arch siblings.
  bool multi_arch_synced(std::size_t e) const {
    const Entry& en = entries[e];
    const Package& cand = pkg(e, en.candidate);
    if (cand.multi_arch != MultiArch::kSame) return true;
    for (std::size_t s : by_name.at(en.name)) {
      if (s == e || entries[s].installed < 0) continue;
      int sc = entries[s].candidate;
      if (sc >= 0 && pkg(s, sc).version != cand.version && pkg(s, sc).multi_arch == MultiArch::kSame &&
          !entries[s].versions[sc].origins.empty())
        return false;
    }
    return true;
  }

  // apt's StateCache::InstBroken for a package marked for install: one of
  // its own (Pre-)Depends is unmet, or its own Conflicts/Breaks hit the
  // planned state.
  bool install_broken(std::size_t e) {
    const Entry& en = entries[e];
    const Package& p = pkg(e, en.candidate);
    for (const auto* list : {&p.pre_depends, &p.depends})
      for (const auto& g : *list)
        if (!group_satisfied(g, en.arch, Select::kInstall, e)) return true;
    std::vector<std::pair<std::size_t, int>> t;
    for (const auto* list : {&p.conflicts, &p.breaks})
      for (const auto& r : *list) targets(r, en.arch, Select::kInstall, true, e, t);
    return !t.empty();
  }

  // apt ≥ 2.1's MarkInstall_UpgradeOtherBinaries (APT::Get::Upgrade-By-Source-
  // Package, on by default): when a version of source S at source version V
  // is marked for install, every *other* installed binary (any architecture)
  // whose candidate comes from S at exactly V is upgraded to that candidate.
  // Binaries not installed, already at that version, or whose candidate has
  // another source version are left alone. apt marks them all first without
  // dependencies (MarkInstall AutoInst=false, which keeps the M-A: same sync
  // check), then resolves each one that is broken; a failure there undoes
  // only that sibling's upgrade and never fails the package that caused it.
  void upgrade_siblings(std::size_t e, unsigned depth) {
    const Package& ver = pkg(e, entries[e].candidate);
    auto it = upgradable_by_source.find(ver.source);
    if (it == upgradable_by_source.end()) return;
    std::vector<std::size_t> todo;
    for (std::size_t o : it->second) {
      const Entry& oe = entries[o];
      if (o == e || marked[o]) continue;
      const Package& oc = pkg(o, oe.candidate);
      if (oc.source != ver.source || oc.source_version != ver.source_version) continue;
      todo.push_back(o);
    }
    for (std::size_t o : todo)
      if (!marked[o] && multi_arch_synced(o)) marked[o] = 1;
    for (std::size_t o : todo) {
      if (!marked[o] || !install_broken(o)) continue;
      if (!mark_install(o, depth + 1, false, true)) marked[o] = 0;
    }
  }

  // apt's pkgDepCache::MarkInstall with AutoInst = true. `again`: the
  // package is already marked but broken, and apt resolves it once more
  // (apt's "Mode == ModeInstall but InstBroken" path).
  bool mark_install(std::size_t e, unsigned depth, bool from_user, bool again = false) {
    Entry& en = entries[e];
    if (en.candidate < 0) return false;
    if (en.candidate == en.installed) return true;
    if (marked[e] && !again) return true;
    if (depth > kMaxDepth) return false;
    const Package& cand = pkg(e, en.candidate);
    const std::string& arch = en.arch;
    // IsInstallOkDependenciesSatisfiableByCandidates (one level deep).
    if (!from_user) {
      for (const auto* list : {&cand.pre_depends, &cand.depends})
        for (const auto& g : *list)
          if (!group_satisfied(g, arch, Select::kCandidateOrInstall, e)) return false;
      if (!multi_arch_synced(e)) return false;
    }
    // Conflicts and Breaks: an installed package in the way is upgraded when
    // its candidate is no longer in conflict; strata never removes packages.
    std::vector<std::size_t> upgrade;
    for (std::size_t o : conflicting(e, en.candidate)) {
      const Entry& oe = entries[o];
      bool upgradable = !marked[o] && oe.installed >= 0 && oe.candidate >= 0 && oe.candidate != oe.installed;
      if (upgradable) {
        char old = marked[o];
        marked[o] = 1;
        auto still = conflicting(e, en.candidate);
        marked[o] = old;
        upgradable = std::find(still.begin(), still.end(), o) == still.end();
      }
      if (!upgradable) return false;
      upgrade.push_back(o);
    }
    marked[e] = 1;
    upgrade_siblings(e, depth);
    for (std::size_t o : upgrade) {
      if (!mark_install(o, depth + 1, false)) {
        marked[e] = 0;
        return false;
      }
    }
    bool failed = false;
    for (const auto* list : {&cand.pre_depends, &cand.depends}) {
      for (const auto& g : *list) {
        if (group_satisfied(g, arch, Select::kInstall, e)) continue;
        bool found = false;
        for (auto [te, tv] : solutions(g, arch, e)) {
          if (entries[te].candidate != tv) continue;
          if (!mark_install(te, depth + 1, false)) continue;
          found = true;
          break;
        }
        if (!found) {
          failed = true;
          if (!from_user) {
            marked[e] = 0;
            return false;
          }
        }
      }
    }
    return !failed;
  }

  // apt's explanation for one relation that the planned state does not meet.
  std::string why_unmet(const Relation& r) {
    ensure_name(r.name);
    ensure_providers(r.name);
    auto real = by_name.find(r.name);
    if (real != by_name.end()) {
      for (std::size_t e : real->second) {
        int iv = selected(e, Select::kInstall);
        if (iv >= 0) {
          return "but " + pkg(e, iv).version + (marked[e] ? " is to be installed" : " is installed");
        }
      }
      for (std::size_t e : real->second)
        if (entries[e].candidate >= 0) return "but it is not going to be installed";
    }
    if (providers.count(r.name)) return "but it is a virtual package";
    return "but it is not installable";
  }

  std::string broken_report(std::size_t e) {
    const Entry& en = entries[e];
    int v = selected(e, Select::kInstall);
    if (v < 0) v = en.candidate;
    const Package& p = pkg(e, v);
    std::string out;
    auto line = [&](std::string_view kind, std::string text) {
      out += " " + p.name + " : " + std::string(kind) + ": " + text + "\n";
    };
    for (auto [list, kind] : {std::pair{&p.pre_depends, "PreDepends"}, std::pair{&p.depends, "Depends"}}) {
      for (const auto& g : *list) {
        if (group_satisfied(g, en.arch, Select::kInstall, e)) continue;
        std::string text;
        for (const auto& r : g) {
          if (!text.empty()) text += " or ";
          text += r.str() + " " + why_unmet(r);
        }
        line(kind, text);
      }
    }
    for (auto [list, kind] : {std::pair{&p.conflicts, "Conflicts"}, std::pair{&p.breaks, "Breaks"}}) {
      for (const auto& r : *list) {
        std::vector<std::pair<std::size_t, int>> t;
        targets(r, en.arch, Select::kInstall, true, e, t);
        for (auto [te, tv] : t)
          line(kind, r.str() + " but " + pkg(te, tv).version + (marked[te] ? " is to be installed" : " is installed"));
      }
    }
    for (std::size_t o : conflicting(e, v)) {
      int ov = selected(o, Select::kInstall);
      const Package& op = pkg(o, ov);
      for (auto [list, kind] : {std::pair{&op.conflicts, "Conflicts"}, std::pair{&op.breaks, "Breaks"}})
        for (const auto& r : *list)
          if (r.name == p.name)
            out += " " + op.name + " : " + kind + ": " + r.str() + " but " + p.version + " is to be installed\n";
    }
    if (out.empty()) out = " " + p.name + " : cannot be installed (no installation candidate satisfies its dependencies)\n";
    return out;
  }
  // One request ("name", "name:arch" or "name=version") as apt-get install
  // reads it: its entry, with the candidate pinned to a requested version; a
  // virtual name selects its only provider (noted in `notes`).
  Result<std::size_t> find_request(const std::string& req, std::vector<std::string>& notes) {
    std::string name = req, arch = options.native_arch, version;
    if (auto eq = name.find('='); eq != std::string::npos) {
      version = name.substr(eq + 1);
      name.resize(eq);
    }
    if (auto colon = name.find(':'); colon != std::string::npos) {
      arch = name.substr(colon + 1);
      name.resize(colon);
      if (arch == "native" || arch == "all") arch = options.native_arch;
    }
    if (!valid_package_name(name))
      return fail(ErrorCode::kInvalidArgument, "invalid package request " + str::quote(req) +
                                                   ": expected NAME, NAME:ARCH or NAME=VERSION");
    auto found_entry = find_entry(name, arch);
    if (!found_entry || entries[*found_entry].candidate < 0) {
      // A virtual package: apt installs its only provider, refuses several.
      std::set<std::size_t> provs;
      ensure_providers(name);
      if (auto pv = providers.find(name); pv != providers.end())
        for (const auto& p : pv->second)
          if (p.version == entries[p.entry].candidate &&
              (entries[p.entry].arch == arch || pkg(p.entry, p.version).multi_arch == MultiArch::kForeign))
            provs.insert(p.entry);
      if (provs.size() == 1 && version.empty()) {
        std::size_t e = *provs.begin();
        notes.push_back("Note, selecting '" + entries[e].name + "' instead of '" + name + "'");
        return e;
      }
      if (provs.size() > 1) {
        std::vector<std::string> names;
        for (auto e : provs) names.push_back(entries[e].name);
        std::sort(names.begin(), names.end());
        return fail(ErrorCode::kNotFound, "package " + name + " is a virtual package provided by: " +
                                              str::join(names, ", ") + "; request one of them explicitly");
      }
      if (found_entry)
        return fail(ErrorCode::kNotFound, "package " + name + ":" + arch +
                                              " has no installation candidate (it is not available from any "
                                              "source; check --sources and --platform)");
      return fail(ErrorCode::kNotFound, "unable to locate package " + name + ":" + arch +
                                            " in the configured sources (check the name, --sources and --platform)");
    }
    std::size_t e = *found_entry;
    if (!version.empty()) {
      Entry& en = entries[e];
      int found = -1;
      for (std::size_t i = 0; i < en.versions.size(); ++i)
        if (en.versions[i].pkg->version == version && !en.versions[i].origins.empty()) found = static_cast<int>(i);
      if (found < 0) {
        if (en.installed >= 0 && en.versions[en.installed].pkg->version == version) found = en.installed;
        else
          return fail(ErrorCode::kNotFound, "version '" + version + "' for '" + name + "' was not found in the sources");
      }
      en.candidate = found;
    }
    return e;
  }

  // apt-get install (TryToInstall, then doAutoInstall): mark every request
  // first (FromUser, no dependencies), then walk each one in request order.
  // Requests are "protected" (pkgProblemResolver::Protect), which skips
  // MarkInstall's "already marked and not broken" shortcut, so every request
  // is walked: checked against apt-get 2.6, a request whose dependencies are
  // already met still upgrades the other binaries of its source package.
  // Returns the broken-package report of the requests that failed (empty: none).
  std::string mark_requests(const std::vector<std::size_t>& requested) {
    for (std::size_t e : requested) {
      Entry& en = entries[e];
      if (en.candidate != en.installed) marked[e] = 1;
    }
    std::string report;
    for (std::size_t e : requested) {
      Entry& en = entries[e];
      if (en.candidate == en.installed) continue;
      if (!mark_install(e, 0, true, true)) {
        marked[e] = 1;
        report += broken_report(e);
      }
    }
    return report;
  }

  // Final check over everything marked, as apt's broken-package report does.
  std::string check_marked() {
    std::string report;
    std::vector<std::size_t> ids;
    for (std::size_t e = 0; e < entries.size(); ++e)
      if (marked[e]) ids.push_back(e);
    by_seq(ids);
    for (std::size_t e : ids) {
      const Entry& en = entries[e];
      const Package& p = pkg(e, en.candidate);
      bool ok = true;
      for (const auto* list : {&p.pre_depends, &p.depends})
        for (const auto& g : *list) ok = ok && group_satisfied(g, en.arch, Select::kInstall, e);
      ok = ok && conflicting(e, en.candidate).empty();
      if (!ok) report += broken_report(e);
    }
    return report;
  }

  // The marked packages at their candidates, sorted by name, then
  // architecture; each fetched from the first source that gives the version
  // its priority.
  std::vector<ResolvedPackage> marked_packages() const {
    std::vector<ResolvedPackage> out;
    for (std::size_t e = 0; e < entries.size(); ++e) {
      if (!marked[e]) continue;
      const Entry& en = entries[e];
      const Version& v = en.versions[en.candidate];
      ResolvedPackage rp;
      rp.package = *v.pkg;
      std::size_t origin = v.origins.empty() ? 0 : v.origins.front();
      for (std::size_t o : v.origins) {
        if (origin_priority[o] > origin_priority[origin]) origin = o;
      }
      rp.origin = origin;
      if (en.installed >= 0) rp.installed_version = en.versions[en.installed].pkg->version;
      out.push_back(std::move(rp));
    }
    std::sort(out.begin(), out.end(), [](const ResolvedPackage& a, const ResolvedPackage& b) {
      if (a.package.name != b.package.name) return a.package.name < b.package.name;
      return a.package.architecture < b.package.architecture;
    });
    return out;
  }
};

Resolver::Resolver(ResolveOptions options) : impl_(std::make_unique<Impl>()) { impl_->options = std::move(options); }
Resolver::~Resolver() = default;

std::size_t Resolver::add_index(std::vector<Package> packages, int priority) {
  return add_index(NameIndex::of(packages), priority);
}

std::size_t Resolver::add_index(std::shared_ptr<const NameIndex> index, int priority) {
  Impl& im = *impl_;
  std::size_t origin = im.origins++;
  im.origin_priority.push_back(priority);
  Source src;
  src.origin = origin;
  src.priority = priority;
  src.first_seq = im.next_seq;
  im.next_seq += index->size();
  src.index = std::move(index);
  im.sources.push_back(std::move(src));
  return origin;
}

void Resolver::set_installed(std::vector<Package> installed) {
  Impl& im = *impl_;
  Source src;
  src.first_seq = im.next_seq;
  im.next_seq += installed.size();
  for (auto& p : installed) {
    std::size_t i = src.installed.size();
    const Package* stored = &im.storage.emplace_back(std::move(p));
    src.installed.push_back(stored);
    src.named[stored->name].push_back(i);
    for (const auto& r : stored->provides) src.providing[r.name].push_back(i);
    for (const auto* list : {&stored->conflicts, &stored->breaks})
      for (const auto& r : *list) src.negating[r.name].push_back(i);
  }
  im.sources.push_back(std::move(src));
}

Result<Resolution> Resolver::resolve(const std::vector<std::string>& requests) {
  Impl& im = *impl_;
  // Every installed name first: the upgrades by source package are known
  // before the walk, as apt's cache has them.
  for (const auto& src : im.sources)
    for (const Package* p : src.installed) im.ensure_name(p->name);
  im.index_upgradable();
  Resolution res;
  std::vector<std::size_t> requested;
  for (const auto& req : requests) {
    auto found = im.find_request(req, res.notes);
    if (im.load_error) return std::unexpected(*im.load_error);
    STRATA_TRY(std::size_t e, std::move(found));
    requested.push_back(e);
  }
  std::string report = im.mark_requests(requested);
  if (report.empty()) report = im.check_marked();
  if (im.load_error) return std::unexpected(*im.load_error);
  if (!report.empty()) {
    return fail(ErrorCode::kFailedPrecondition,
                "the request cannot be satisfied; the following packages have unmet dependencies:\n" + report +
                    "(the same request would fail in apt-get; change the request, the base or the sources)");
  }
  res.install = im.marked_packages();
  return res;
}

std::vector<std::string> foreign_architectures(const std::string& native_arch, std::string_view dpkg_arch,
                                               const std::vector<Package>& installed,
                                               const std::vector<std::string>& requests) {
  std::set<std::string> out;
  auto add = [&](std::string_view a) {
    while (!a.empty() && (a.back() == ' ' || a.back() == '\t' || a.back() == '\r')) a.remove_suffix(1);
    while (!a.empty() && (a.front() == ' ' || a.front() == '\t')) a.remove_prefix(1);
    if (a.empty() || a == native_arch || a == "all" || a == "any" || a == "native") return;
    out.emplace(a);
  };
  for (std::size_t pos = 0; pos < dpkg_arch.size();) {
    std::size_t nl = dpkg_arch.find('\n', pos);
    if (nl == std::string_view::npos) nl = dpkg_arch.size();
    add(dpkg_arch.substr(pos, nl - pos));
    pos = nl + 1;
  }
  for (const auto& p : installed) add(p.architecture);
  for (const auto& r : requests) {
    std::string_view name = std::string_view(r).substr(0, r.find('='));
    if (auto colon = name.find(':'); colon != std::string_view::npos) add(name.substr(colon + 1));
  }
  return {out.begin(), out.end()};
}

}  // namespace strata::layer
