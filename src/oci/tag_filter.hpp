// TagFilter: which tags of a repository a mirror copies. Applied in order:
//   include  regular expressions in RE2 syntax (matched anywhere; anchor
//            with ^…$): a tag is kept when one matches (no list: every tag)
//   exclude  regular expressions: a tag any of them matches is dropped
//   semver   an npm range (util/version_range, read strictly) over tags
//            that read as versions (`v` prefix allowed, missing parts are 0:
//            "12" is 12.0.0): comparators joined by spaces are all required,
//            alternatives are joined by "||": ">=1.2 <2", "^1.4" (>=1.4.0
//            <2.0.0; ^0.3 is >=0.3.0 <0.4.0), "~1.4.2" (>=1.4.2 <1.5.0),
//            "1.4" or "1.4.x" (>=1.4.0 <1.5.0), "1.2 - 1.4" (>=1.2.0
//            <1.5.0), "=1.4.2", "*". A tag with a pre-release part
//            (1.2.0-rc1) matches only an alternative that names a
//            pre-release (Range::selects). Tags that are not versions are
//            dropped.
//   newest   keep the N highest versions left (tags that are not versions
//            are dropped; equal versions such as 1.2 and 1.2.0 both stay).
// The result is sorted (versions high to low when `newest` or `semver` is
// set, else by name).
//
// Patterns come from a config file and tags from a registry, so neither is
// trusted: patterns run on RE2, whose matching is linear in the tag (no
// backtracking: `^(a+)+$` cannot hang, no recursion: a long tag cannot
// overflow the stack), which is why backreferences and lookaround are not
// accepted; and a listed tag must first match the OCI distribution tag
// grammar [a-zA-Z0-9_][a-zA-Z0-9._-]{0,127} (oci::is_valid_tag) — one that
// does not is set aside, never matched against a pattern.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "util/version_range.hpp"

namespace strata::oci {

struct TagFilter {
  std::vector<std::string> include;
  std::vector<std::string> exclude;
  std::string semver;  // "" : no range
  int newest = 0;      // 0: no limit

  bool empty() const { return include.empty() && exclude.empty() && semver.empty() && newest == 0; }
};

// A tag read as a version ("v1.2.3-rc.1", "12-slim"), or nullopt: semver's
// grammar (VersionSyntax::kStrict), so "1.2.3.4" is not one. Versions order
// by semver precedence (Version's <=>).
std::optional<Version> parse_tag_version(std::string_view tag);

// Checks the regular expressions (RE2 syntax; RE2's own message on a
// refusal) and the range; `where` names the filter in errors
// ("mirror.yaml: repositories[0]: tags").
Result<void> check_tag_filter(const TagFilter& filter, const std::string& where);

// The tags `filter` keeps out of `tags`. Tags that break the tag grammar are
// never kept; they are appended to `invalid` (when given) in listed order,
// for the caller to warn about.
Result<std::vector<std::string>> select_tags(const std::vector<std::string>& tags, const TagFilter& filter,
                                             const std::string& where, std::vector<std::string>* invalid = nullptr);

}  // namespace strata::oci
