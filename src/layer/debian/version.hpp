// Debian version strings ([epoch:]upstream[-revision]) and dpkg's ordering
// (deb-version(5), dpkg lib/dpkg/version.c semantics re-implemented).
// Pure functions; thread-safe.
#pragma once

#include <string_view>

#include "util/error.hpp"

namespace strata::layer {

// Checks the syntax dpkg accepts: an optional numeric epoch, an upstream part
// starting with a digit and made of [A-Za-z0-9.+~-:] characters, an optional
// revision of [A-Za-z0-9.+~]. `what` names the input in the error.
Result<void> validate_version(std::string_view version, std::string_view what);

// <0, 0, >0 like strcmp, with dpkg's rules: epochs numerically; then upstream
// and revision compared by alternating non-digit runs ('~' sorts before
// everything, even the end; letters before other characters) and numeric
// runs. A missing epoch is 0; a missing revision compares equal to "0".
int compare_versions(std::string_view a, std::string_view b);

enum class RelOp { kAny, kLess, kLessEq, kEq, kGreaterEq, kGreater };

// True when `version` satisfies "op reference" (kAny: always).
bool version_satisfies(std::string_view version, RelOp op, std::string_view reference);

std::string_view rel_op_text(RelOp op);  // "<<", "<=", "=", ">=", ">>", ""

}  // namespace strata::layer
