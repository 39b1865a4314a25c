#include "contract/route/candidates.hpp"

#include <algorithm>

#include "layer/debian/version.hpp"

namespace strata::contract::route {

Candidates::Candidates(const layer::LoadedArchive& archive, const std::string& native_arch) {
  std::map<std::string, int, std::less<>> priority;
  for (const auto& idx : archive.indexes) {
    int prio = archive.sources[idx.source].priority;
    for (const auto& p : idx.packages) {
      if (p.architecture != native_arch && p.architecture != "all") continue;
      auto it = versions_.find(p.name);
      bool better = it == versions_.end() || prio > priority[p.name] ||
                    (prio == priority[p.name] && layer::compare_versions(p.version, it->second) > 0);
      if (better) {
        versions_[p.name] = p.version;
        priority[p.name] = prio;
      }
      for (const auto& r : p.provides) {
        auto& v = provides_[r.name];
        if (std::find(v.begin(), v.end(), p.name) == v.end()) v.push_back(p.name);
      }
    }
  }
  for (auto& [name, v] : provides_) std::sort(v.begin(), v.end());
}

Candidates::Candidates(std::map<std::string, std::string> versions,
                       std::map<std::string, std::vector<std::string>> provides) {
  for (auto& [k, v] : versions) versions_[k] = std::move(v);
  for (auto& [k, v] : provides) provides_[k] = std::move(v);
}

const std::string* Candidates::version(std::string_view package) const {
  auto it = versions_.find(package);
  return it == versions_.end() ? nullptr : &it->second;
}

std::string Candidates::satisfier(std::string_view name) const {
  if (versions_.contains(name)) return std::string(name);
  auto it = provides_.find(name);
  if (it == provides_.end() || it->second.empty()) return {};
  return it->second.front();
}

std::vector<std::string> Candidates::with_prefix(std::string_view prefix) const {
  std::vector<std::string> out;
  for (auto it = versions_.lower_bound(prefix); it != versions_.end() && it->first.starts_with(prefix); ++it)
    out.push_back(it->first);
  return out;
}

}  // namespace strata::contract::route
