#include "layer/apt/lock_mirror.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

bool serves(const AptSource& mirror, const LockSource& s) {
  if (mirror.suite != s.suite) return false;
  return std::all_of(s.components.begin(), s.components.end(), [&](const std::string& c) {
    return std::find(mirror.components.begin(), mirror.components.end(), c) != mirror.components.end();
  });
}

}  // namespace

Result<Lock> repoint_lock(Lock lock, const std::vector<AptSource>& mirrors) {
  for (auto& s : lock.sources) {
    auto it = std::find_if(mirrors.begin(), mirrors.end(), [&](const AptSource& m) { return serves(m, s); });
    if (it == mirrors.end()) {
      std::vector<std::string> given;
      for (const auto& m : mirrors) given.push_back(m.uri + " " + m.suite + " " + str::join(m.components, " ") + " (" + m.where + ")");
      return fail(ErrorCode::kInvalidArgument,
                  "--sources: no source given serves the lock's " + s.uri + " " + s.suite + " " +
                      str::join(s.components, " ") + " (a mirror needs the same suite and those components); given: " +
                      (given.empty() ? std::string("none") : str::join(given, "; ")));
    }
    s.uri = it->uri;
  }
  return lock;
}

}  // namespace strata::layer
