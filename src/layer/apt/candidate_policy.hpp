// apt's candidate version (pkgPolicy::GetCandidateVer), the one rule both the
// resolver and the router's archive lookups use: of one package's versions,
// the highest pin priority wins and, at equal priority, the highest version;
// a priority of 0 or less is never a candidate; below priority 1000 a version
// older than the installed one is not (no downgrade).
#pragma once

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <string_view>
#include <vector>

#include "layer/debian/version.hpp"

namespace strata::layer {

// `version_of(i)` and `priority_of(i)` describe version i of n; `installed`
// is the index of the installed version, or -1. Returns the candidate's
// index, or -1 when no version may be installed.
template <class VersionOf, class PriorityOf>
int apt_candidate(std::size_t n, VersionOf version_of, PriorityOf priority_of, int installed = -1) {
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return compare_versions(std::string_view(version_of(a)), std::string_view(version_of(b))) > 0;
  });
  int best = -1;
  int max = 0;
  for (int i : order) {
    const int priority = priority_of(i);
    if (priority <= 0) continue;
    if (installed >= 0 && i != installed && priority < 1000 &&
        compare_versions(std::string_view(version_of(installed)), std::string_view(version_of(i))) > 0)
      continue;
    if (priority > max) {
      max = priority;
      best = i;
    }
  }
  return best;
}

}  // namespace strata::layer
