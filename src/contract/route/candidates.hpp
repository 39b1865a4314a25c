// The archive as the router sees it: apt's candidate of each package (the
// highest pin priority, then the highest version, among the native
// architecture and "all") and the real packages that provide each virtual
// name. Built from a loaded archive (layer/apt/archive.hpp), the same
// sources `strata resolve` and `strata build` read. Immutable after
// construction; thread-safe to read.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "layer/apt/archive.hpp"

namespace strata::contract::route {

class Candidates {
 public:
  Candidates() = default;
  Candidates(const layer::LoadedArchive& archive, const std::string& native_arch);
  // For tests: name → version, and virtual name → providers.
  Candidates(std::map<std::string, std::string> versions, std::map<std::string, std::vector<std::string>> provides);

  // The candidate version of a real package, or nullptr.
  const std::string* version(std::string_view package) const;
  // The package that satisfies `name`: itself when real, else its first
  // provider (sorted by name); "" when neither.
  std::string satisfier(std::string_view name) const;
  // Real package names starting with `prefix`, sorted ("python3." → python3.11, …).
  std::vector<std::string> with_prefix(std::string_view prefix) const;
  bool empty() const { return versions_.empty(); }

 private:
  std::map<std::string, std::string, std::less<>> versions_;
  std::map<std::string, std::vector<std::string>, std::less<>> provides_;
};

}  // namespace strata::contract::route
