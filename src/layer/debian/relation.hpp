// Package relationship fields (Depends, Pre-Depends, Conflicts, Breaks,
// Provides) of binary packages: "name[:arch] [(op version)]" items separated
// by ',' with '|' alternatives. Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "layer/debian/version.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct Relation {
  std::string name;
  std::string arch;  // "" (none), "any", or an architecture name
  RelOp op = RelOp::kAny;
  std::string version;  // empty when op == kAny

  // "name[:arch] (op version)" as apt prints it.
  std::string str() const;
  bool operator==(const Relation&) const = default;
};

using OrGroup = std::vector<Relation>;

enum class Alternatives { kAllowed, kForbidden };

// Parses a relationship field. `what` names the input ("Packages:120 foo
// Depends") in errors. Arch restrictions ("[amd64]") and build profiles
// ("<!nocheck>") belong to source packages and are refused, as apt does for
// binary packages. The deprecated '<' and '>' mean '<=' and '>='.
Result<std::vector<OrGroup>> parse_relations(std::string_view field, std::string_view what,
                                             Alternatives alternatives = Alternatives::kAllowed);

// Validates a binary package name (lowercase alphanumerics and "+-.",
// starting with an alphanumeric).
bool valid_package_name(std::string_view name);

}  // namespace strata::layer
