// Versions and version ranges, reduced to what a floor computation needs.
//
// A Range is a union of intervals over Version. npm ranges (`^`, `~`, `>=`,
// x-ranges, hyphen ranges, `||`), PEP 440 specifiers (`>=`, `~=`, `==3.12.*`,
// `!=`, comma = and) and Go versions (`1.22`, `1.22.0`, `1.21rc1`) all parse
// into it, so constraints from different files can be intersected: the floor
// of a tool is the lowest version in the intersection, and an empty
// intersection is a conflict. Pre-release tags are compared only to order a
// release after its pre-releases; ranges never select pre-releases. Values are
// plain data; all functions are pure and thread-safe.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::contract {

struct Version {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  std::uint64_t patch = 0;
  std::string pre;  // "" for a release; "rc1", "beta.2"… sort before the release

  std::string str() const;
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) = default;
};

// Parses "20", "v20.11", "1.22.0", "3.13.0rc1", "1.21rc1" (Go), "1.2.3-beta.1".
// Missing minor/patch become 0; returns nullopt on anything else.
std::optional<Version> parse_version(std::string_view text);

struct Bound {
  Version v;
  bool inclusive = true;
};

// [lo, hi] with either end optional (unbounded).
struct Interval {
  std::optional<Bound> lo;
  std::optional<Bound> hi;
  bool empty() const;
};

struct Range {
  std::vector<Interval> any_of;  // empty vector = matches nothing

  static Range all();
  static Range exactly(const Version& v);
  static Range at_least(const Version& v);
  bool is_empty() const;
  bool unbounded_below() const;
  bool contains(const Version& v) const;
  // The lowest release version the range admits (an exclusive bound is bumped
  // to the next patch); nullopt when empty or unbounded below.
  std::optional<Version> floor() const;
  // Canonical text such as ">=20.0.0 <21.0.0 || >=22.0.0".
  std::string str() const;
};

Range intersect(const Range& a, const Range& b);

// npm/node-semver range syntax. "" and "*" and "latest"-free x-ranges mean all.
Result<Range> parse_npm_range(std::string_view text);
// PEP 440 version specifiers, comma separated ("!=" is ignored for floors).
Result<Range> parse_pep440(std::string_view text);
// A bare version that means "this release line": "20" → 20.x, "3.12" → 3.12.x,
// "1.2.3" → exactly 1.2.3. Used by .nvmrc, .python-version and friends.
Result<Range> parse_version_line(std::string_view text);

}  // namespace strata::contract
