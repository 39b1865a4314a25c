// Versions and version ranges: the one reader of npm ranges in strata.
//
// A Range is a union of intervals over Version. npm ranges (`^`, `~`, `>=`,
// x-ranges, hyphen ranges, `||`), PEP 440 specifiers (`>=`, `~=`, `==3.12.*`,
// `!=`, comma = and) and Go versions (`1.22`, `1.22.0`, `1.21rc1`) all parse
// into it, so constraints from different files can be intersected: the floor
// of a tool is the lowest version in the intersection, and an empty
// intersection is a conflict. Versions order as semver orders them (a
// pre-release below its release, its dot-separated identifiers numerically
// when both are numbers: rc.2 < rc.10). `contains` is for floors and ignores
// whether a version is a pre-release; `selects` is for picking versions out of
// a list (a mirror's tags) and keeps pre-releases out unless the range names
// one. Values are plain data; all functions are pure and thread-safe.
//
// Two readers' needs, one grammar, two strictnesses (VersionSyntax):
//   kLenient  what repositories write, read as npm reads it: besides semver,
//             PEP 440 and Go spellings ("3.13.0rc1", "1.21rc1", an epoch
//             "1!2.0" and ".post1" dropped), a fourth number kept (OTP's
//             27.3.4.6; a fifth is dropped), and in a range an empty
//             alternative or "latest" means any version.
//   kStrict   what strata's own configs must write (a mirror's `semver` tag
//             filter): a version is semver's (an optional "v", up to three
//             numbers, a pre-release after "-" of dot-separated [0-9A-Za-z-]
//             identifiers, "+build" ignored); in a range a pre-release follows
//             all three numbers, and an empty alternative is a mistake.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata {

enum class VersionSyntax { kLenient, kStrict };

struct Version {
  std::uint64_t major = 0;
  std::uint64_t minor = 0;
  std::uint64_t patch = 0;
  std::string pre;  // "" for a release; "rc1", "beta.2"… sort before the release (semver precedence)
  // A fourth number, for releases that have one (Erlang/OTP's 27.3.4.6, a
  // JDK's 17.0.8.1): it orders after patch and shows only when not 0.
  std::uint64_t fourth = 0;

  std::string str() const;
  friend std::strong_ordering operator<=>(const Version& a, const Version& b);
  friend bool operator==(const Version& a, const Version& b) = default;
};

// Parses "20", "v20.11", "1.22.0", "1.2.3-beta.1", "12-slim" and, leniently,
// "3.13.0rc1", "1.21rc1" (Go). Missing minor/patch become 0; returns nullopt
// on anything else.
std::optional<Version> parse_version(std::string_view text, VersionSyntax syntax = VersionSyntax::kLenient);

struct Bound {
  Version v;
  bool inclusive = true;
};

// [lo, hi] with either end optional (unbounded).
struct Interval {
  std::optional<Bound> lo;
  std::optional<Bound> hi;
  bool names_pre = false;  // a comparator of it named a pre-release (">=1.3.0-rc0")
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
  // contains(v), and a pre-release only through an interval that names one:
  // ">=1.2 <2" does not select 1.3.0-rc1, ">=1.3.0-rc0 <1.3.1" does.
  bool selects(const Version& v) const;
  // The lowest release version the range admits (an exclusive bound is bumped
  // to the next patch); nullopt when empty or unbounded below.
  std::optional<Version> floor() const;
  // Canonical text such as ">=20.0.0 <21.0.0 || >=22.0.0".
  std::string str() const;
};

Range intersect(const Range& a, const Range& b);

// npm/node-semver range syntax. "*", "x" and (leniently) "" and "latest" mean all.
Result<Range> parse_npm_range(std::string_view text, VersionSyntax syntax = VersionSyntax::kLenient);
// PEP 440 version specifiers, comma separated ("!=" is ignored for floors).
Result<Range> parse_pep440(std::string_view text);
// A bare version that means "this release line": "20" → 20.x, "3.12" → 3.12.x,
// "1.2.3" → exactly 1.2.3. Used by .nvmrc, .python-version and friends.
Result<Range> parse_version_line(std::string_view text);

}  // namespace strata
