// The archive as the router sees it: apt's candidate of each package (the
// highest pin priority, then the highest version, among the native
// architecture and "all") and the real packages that provide each virtual
// name. Read from a loaded archive's by-name indexes (layer/apt/name_index),
// the same sources `strata resolve` and `strata build` read, decoding only
// the packages the router asks about; each answer is kept (so reads are not
// thread-safe: one plan, one thread).
#pragma once

#include <map>
#include <memory>
#include <optional>
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

 private:
  struct Source {
    std::shared_ptr<const layer::NameIndex> index;
    int priority = 500;
  };
  // The candidate of `name` (a package of the native architecture or "all").
  std::optional<std::string> candidate_of(std::string_view name) const;

  std::vector<Source> sources_;
  std::string arch_;
  mutable std::map<std::string, std::optional<std::string>, std::less<>> versions_;  // asked so far
};

}  // namespace strata::contract::route
