#include "contract/route/candidates.hpp"

#include <algorithm>
#include <set>

#include "layer/apt/candidate_policy.hpp"
#include "layer/debian/version.hpp"

namespace strata::contract::route {

Candidates::Candidates(const layer::LoadedArchive& archive, const std::string& native_arch) : arch_(native_arch) {
  for (const auto& idx : archive.indexes) {
    if (idx.index) sources_.push_back({idx.index, archive.sources[idx.source].priority});
  }
}

Candidates::Candidates(std::map<std::string, std::string> versions,
                       std::map<std::string, std::vector<std::string>> provides)
    : arch_("amd64") {
  std::vector<layer::Package> packages;
  for (auto& [name, version] : versions) {
    layer::Package p;
    p.name = name;
    p.version = version;
    p.architecture = arch_;
    for (const auto& [virt, providers] : provides) {
      if (std::find(providers.begin(), providers.end(), name) == providers.end()) continue;
      layer::Relation r;
      r.name = virt;
      p.provides.push_back(std::move(r));
    }
    packages.push_back(std::move(p));
  }
  sources_.push_back({layer::NameIndex::of(packages, "test archive"), 500});
}

std::optional<std::string> Candidates::candidate_of(std::string_view name) const {
  std::vector<std::pair<std::string, int>> versions;  // every version of the name, with its source's priority
  for (const auto& s : sources_) {
    auto records = s.index->named(name);
    for (std::uint32_t i = 0; i < records.size(); ++i) {
      // A record that does not decode is left to the resolver, which names it.
      auto p = s.index->package(records[i]);
      if (!p || (p->architecture != arch_ && p->architecture != "all")) continue;
      versions.emplace_back(p->version, s.priority);
    }
  }
  int best = layer::apt_candidate(
      versions.size(), [&](int i) -> const std::string& { return versions[i].first; },
      [&](int i) { return versions[i].second; });
  if (best < 0) return std::nullopt;
  return versions[static_cast<std::size_t>(best)].first;
}

const std::string* Candidates::version(std::string_view package) const {
  auto it = versions_.find(package);
  if (it == versions_.end()) it = versions_.emplace(std::string(package), candidate_of(package)).first;
  return it->second ? &*it->second : nullptr;
}

std::string Candidates::satisfier(std::string_view name) const {
  if (version(name)) return std::string(name);
  std::set<std::string> providers;  // real packages of the architecture, sorted
  for (const auto& s : sources_) {
    auto records = s.index->providing(name);
    for (std::uint32_t i = 0; i < records.size(); ++i) {
      std::string provider(s.index->record_name(records[i]));
      if (version(provider)) providers.insert(std::move(provider));
    }
  }
  return providers.empty() ? std::string() : *providers.begin();
}

std::vector<std::string> Candidates::with_prefix(std::string_view prefix) const {
  std::set<std::string> names;
  for (const auto& s : sources_) {
    for (auto n : s.index->names_with_prefix(prefix)) {
      if (version(n)) names.emplace(n);
    }
  }
  return {names.begin(), names.end()};
}

}  // namespace strata::contract::route
