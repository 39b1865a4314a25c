#include "oci/tag_filter.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <memory>

#include "oci/reference.hpp"
#include "util/strings.hpp"
#include "util/version_range.hpp"

namespace strata::oci {

namespace {

// The `semver` range, read by the one npm-range reader, strictly: a config's
// mistake (an empty alternative, "1.2.3.4", "latest") is an error, not "*".
Result<Range> parse_range(const std::string& range, const std::string& where) {
  auto r = parse_npm_range(range, VersionSyntax::kStrict);
  if (!r)
    return fail(ErrorCode::kInvalidArgument,
                where + ": " + r.error().message() +
                    " (comparators joined by spaces, alternatives by ||: >=1.2 <2, ^1.4, ~1.4.2, 1.4.x, "
                    "1.2 - 1.4, =1.4.2, *)");
  return r;
}

using Patterns = std::vector<std::unique_ptr<const RE2>>;

// RE2, not std::regex: libstdc++'s engine backtracks (`^(a+)+$` on
// "aaaa…a-" runs for ever) and recurses per character (a 50,000-character
// tag overflows the stack). RE2 matches in time linear in the tag and
// refuses what it cannot do that way (backreferences, lookaround).
Result<Patterns> compile(const std::vector<std::string>& patterns, const std::string& where, const char* key) {
  RE2::Options options;
  options.set_log_errors(false);  // the refusal is returned, not logged to stderr
  Patterns out;
  for (const auto& p : patterns) {
    auto re = std::make_unique<const RE2>(p, options);
    if (!re->ok()) {
      // RE2's message ("invalid perl operator: (?<") with the part of the
      // pattern it names quoted, as that part is the config's bytes.
      std::string why = re->error();
      const std::string& arg = re->error_arg();
      if (!arg.empty() && why.ends_with(": " + arg)) why = why.substr(0, why.size() - arg.size()) + str::quote(arg, 60);
      return fail(ErrorCode::kInvalidArgument,
                  where + ": `" + key + "`: " + str::quote(p) + " is not a regular expression RE2 accepts (" + why +
                      "); write it in RE2 syntax (no backreferences, no lookaround)");
    }
    out.push_back(std::move(re));
  }
  return out;
}

}  // namespace

std::optional<Version> parse_tag_version(std::string_view tag) {
  // A tag's own pre-release may follow fewer than three numbers ("12-slim").
  return parse_version(tag, VersionSyntax::kStrict);
}

Result<void> check_tag_filter(const TagFilter& f, const std::string& where) {
  STRATA_TRY_VOID(compile(f.include, where, "include"));
  STRATA_TRY_VOID(compile(f.exclude, where, "exclude"));
  if (!f.semver.empty()) STRATA_TRY_VOID(parse_range(f.semver, where + ": `semver`"));
  if (f.newest < 0) return fail(ErrorCode::kInvalidArgument, where + ": `newest` must be a positive number");
  return {};
}

Result<std::vector<std::string>> select_tags(const std::vector<std::string>& tags, const TagFilter& f,
                                             const std::string& where, std::vector<std::string>* invalid) {
  STRATA_TRY(auto include, compile(f.include, where, "include"));
  STRATA_TRY(auto exclude, compile(f.exclude, where, "exclude"));
  std::optional<Range> range;
  if (!f.semver.empty()) {
    STRATA_TRY(range, parse_range(f.semver, where + ": `semver`"));
  }
  const bool by_version = !f.semver.empty() || f.newest > 0;
  std::vector<std::pair<std::string, std::optional<Version>>> kept;
  for (const auto& tag : tags) {
    if (!is_valid_tag(tag)) {
      if (invalid) invalid->push_back(tag);
      continue;
    }
    auto search = [&](const std::unique_ptr<const RE2>& r) { return RE2::PartialMatch(tag, *r); };
    if (!include.empty() && std::none_of(include.begin(), include.end(), search)) continue;
    if (std::any_of(exclude.begin(), exclude.end(), search)) continue;
    std::optional<Version> v;
    if (by_version) {
      v = parse_tag_version(tag);
      if (!v) continue;
      if (range && !range->selects(*v)) continue;
    }
    kept.emplace_back(tag, std::move(v));
  }
  std::sort(kept.begin(), kept.end(), [&](const auto& a, const auto& b) {
    if (by_version) {
      auto c = *a.second <=> *b.second;
      if (c != 0) return c > 0;
    }
    return a.first < b.first;
  });
  if (f.newest > 0 && kept.size() > static_cast<std::size_t>(f.newest)) kept.resize(static_cast<std::size_t>(f.newest));
  std::vector<std::string> out;
  for (auto& k : kept) out.push_back(std::move(k.first));
  return out;
}

}  // namespace strata::oci
