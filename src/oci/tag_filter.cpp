#include "oci/tag_filter.hpp"

#include <re2/re2.h>

#include <algorithm>
#include <memory>

#include "oci/reference.hpp"
#include "util/strings.hpp"

namespace strata::oci {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool pre_ident_ok(std::string_view id) {
  return !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-';
  });
}

int compare_prerelease(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  if (a.empty()) return 1;  // a release sorts above its pre-releases
  if (b.empty()) return -1;
  auto as = str::split(a, '.'), bs = str::split(b, '.');
  for (std::size_t i = 0; i < std::min(as.size(), bs.size()); ++i) {
    const bool an = all_digits(as[i]), bn = all_digits(bs[i]);
    if (an && bn) {
      if (as[i].size() != bs[i].size()) return as[i].size() < bs[i].size() ? -1 : 1;
    } else if (an != bn) {
      return an ? -1 : 1;  // numeric identifiers sort below alphanumeric ones
    }
    if (int c = as[i].compare(bs[i]); c != 0) return c < 0 ? -1 : 1;
  }
  return as.size() == bs.size() ? 0 : (as.size() < bs.size() ? -1 : 1);
}

// One version as a range comparator writes it: up to three numbers, the rest
// wildcards or missing ("1.4", "1.x", "*").
struct Partial {
  TagVersion v;  // missing parts are 0
  int given = 0; // how many numbers were written
};

std::optional<Partial> parse_partial(std::string_view s) {
  Partial p;
  if (!s.empty() && (s[0] == 'v' || s[0] == 'V')) s.remove_prefix(1);
  std::string_view pre;
  if (auto dash = s.find('-'); dash != std::string_view::npos) {
    pre = s.substr(dash + 1);
    s = s.substr(0, dash);
    for (auto id : str::split(pre, '.'))
      if (!pre_ident_ok(id)) return std::nullopt;
  }
  if (s.empty()) return std::nullopt;
  auto parts = str::split(s, '.');
  if (parts.size() > 3) return std::nullopt;
  bool wild = false;
  for (auto part : parts) {
    if (part == "x" || part == "X" || part == "*") {
      wild = true;
      continue;
    }
    if (wild || !all_digits(part) || part.size() > 18) return std::nullopt;
    p.v.numbers.push_back(std::stoll(std::string(part)));
  }
  p.given = static_cast<int>(p.v.numbers.size());
  p.v.numbers.resize(3, 0);
  p.v.prerelease = std::string(pre);
  return p;
}

// `v` with part `k` (1: major, 2: minor, 3: patch) increased and the rest 0.
TagVersion bump(const TagVersion& v, int k) {
  TagVersion out;
  out.numbers = v.numbers;
  out.numbers.resize(3, 0);
  out.numbers[static_cast<std::size_t>(k - 1)] += 1;
  for (std::size_t i = static_cast<std::size_t>(k); i < 3; ++i) out.numbers[i] = 0;
  return out;
}

struct Bound {
  TagVersion v;
  bool inclusive = true;
};

struct Comparator {
  std::optional<Bound> lower, upper;
};

struct Alternative {
  std::vector<Comparator> all;
  bool names_prerelease = false;
};

Result<Comparator> parse_comparator(std::string_view token, const std::string& where) {
  std::string_view op;
  for (std::string_view o : {">=", "<=", ">", "<", "=", "^", "~"}) {
    if (token.starts_with(o)) {
      op = o;
      break;
    }
  }
  auto bad = [&] {
    return fail(ErrorCode::kInvalidArgument,
                where + ": " + str::quote(std::string(token)) +
                    " is not a version comparator (>=1.2, <2, ^1.4, ~1.4.2, 1.4.x, =1.4.2, *)");
  };
  auto p = parse_partial(token.substr(op.size()));
  if (!p || (p->given < 3 && !p->v.prerelease.empty())) return bad();  // "1.2-rc1" is no bound
  Comparator c;
  const int n = p->given;
  if (n == 0 && op != "" && op != "=") return bad();
  if (op == "" || op == "=") {
    if (n == 0) return c;  // "*": any version
    c.lower = Bound{p->v, true};
    if (n == 3) c.upper = Bound{p->v, true};
    else c.upper = Bound{bump(p->v, n), false};
  } else if (op == ">=") {
    c.lower = Bound{p->v, true};
  } else if (op == ">") {
    c.lower = n == 3 ? Bound{p->v, false} : Bound{bump(p->v, n), true};
  } else if (op == "<") {
    c.upper = Bound{p->v, false};
  } else if (op == "<=") {
    c.upper = n == 3 ? Bound{p->v, true} : Bound{bump(p->v, n), false};
  } else if (op == "^") {
    c.lower = Bound{p->v, true};
    const auto& x = p->v.numbers;
    int k = (x[0] > 0 || n == 1) ? 1 : (x[1] > 0 || n == 2) ? 2 : 3;
    c.upper = Bound{bump(p->v, k), false};
  } else {  // "~"
    c.lower = Bound{p->v, true};
    c.upper = Bound{bump(p->v, n >= 2 ? 2 : 1), false};
  }
  return c;
}

Result<std::vector<Alternative>> parse_range(std::string_view range, const std::string& where) {
  std::vector<Alternative> out;
  std::string text(range);
  std::size_t start = 0;
  while (true) {
    auto at = text.find("||", start);
    std::string piece = text.substr(start, at == std::string::npos ? std::string::npos : at - start);
    Alternative alt;
    for (auto word : str::split_ws(piece)) {
      STRATA_TRY(auto c, parse_comparator(word, where));
      if ((c.lower && !c.lower->v.prerelease.empty()) || (c.upper && !c.upper->v.prerelease.empty()))
        alt.names_prerelease = true;
      alt.all.push_back(std::move(c));
    }
    if (alt.all.empty())
      return fail(ErrorCode::kInvalidArgument, where + ": an empty alternative in " + str::quote(text));
    out.push_back(std::move(alt));
    if (at == std::string::npos) return out;
    start = at + 2;
  }
}

bool satisfies(const TagVersion& v, const std::vector<Alternative>& range) {
  for (const auto& alt : range) {
    if (!v.prerelease.empty() && !alt.names_prerelease) continue;
    bool ok = true;
    for (const auto& c : alt.all) {
      if (c.lower) {
        int cmp = compare_versions(v, c.lower->v);
        if (cmp < 0 || (cmp == 0 && !c.lower->inclusive)) ok = false;
      }
      if (c.upper) {
        int cmp = compare_versions(v, c.upper->v);
        if (cmp > 0 || (cmp == 0 && !c.upper->inclusive)) ok = false;
      }
    }
    if (ok) return true;
  }
  return false;
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

std::optional<TagVersion> parse_tag_version(std::string_view tag) {
  auto p = parse_partial(tag);
  if (!p || p->given == 0) return std::nullopt;
  // A tag's own pre-release may follow fewer than three numbers ("12-slim").
  return p->v;
}

int compare_versions(const TagVersion& a, const TagVersion& b) {
  for (std::size_t i = 0; i < 3; ++i) {
    long long x = i < a.numbers.size() ? a.numbers[i] : 0, y = i < b.numbers.size() ? b.numbers[i] : 0;
    if (x != y) return x < y ? -1 : 1;
  }
  return compare_prerelease(a.prerelease, b.prerelease);
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
  std::vector<Alternative> range;
  if (!f.semver.empty()) {
    STRATA_TRY(range, parse_range(f.semver, where + ": `semver`"));
  }
  const bool by_version = !f.semver.empty() || f.newest > 0;
  std::vector<std::pair<std::string, std::optional<TagVersion>>> kept;
  for (const auto& tag : tags) {
    if (!is_valid_tag(tag)) {
      if (invalid) invalid->push_back(tag);
      continue;
    }
    auto search = [&](const std::unique_ptr<const RE2>& r) { return RE2::PartialMatch(tag, *r); };
    if (!include.empty() && std::none_of(include.begin(), include.end(), search)) continue;
    if (std::any_of(exclude.begin(), exclude.end(), search)) continue;
    std::optional<TagVersion> v;
    if (by_version) {
      v = parse_tag_version(tag);
      if (!v) continue;
      if (!range.empty() && !satisfies(*v, range)) continue;
    }
    kept.emplace_back(tag, std::move(v));
  }
  std::sort(kept.begin(), kept.end(), [&](const auto& a, const auto& b) {
    if (by_version) {
      int c = compare_versions(*a.second, *b.second);
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
