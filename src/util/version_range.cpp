#include "util/version_range.hpp"

#include <algorithm>
#include <set>
#include <cctype>

#include "util/strings.hpp"

namespace strata {
namespace {

// A possibly partial version: "1", "1.2", "1.x", "1.2.3-rc.1". A missing or
// wildcard component is nullopt; `count` is how many components were written
// (PEP 440's ~= needs it).
struct Partial {
  std::optional<std::uint64_t> part[3];
  std::uint64_t fourth = 0;  // "27.3.4.6": a fourth number, only after three
  std::string pre;
  int count = 0;
  bool any() const { return !part[0]; }
};

bool is_wild(std::string_view s) { return s == "x" || s == "X" || s == "*"; }

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Semver's pre-release: dot-separated identifiers, each non-empty [0-9A-Za-z-].
bool semver_pre(std::string_view pre) {
  for (auto id : str::split(pre, '.')) {
    if (id.empty()) return false;
    for (char c : id)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-') return false;
  }
  return true;
}

// A version's number: digits only, at most 18 of them (no overflow when bumped).
std::optional<std::uint64_t> number(std::string_view s) {
  if (s.size() > 18) return std::nullopt;
  return str::parse_u64(s);
}

// Splits a trailing pre-release off a numeric component: "0rc1" → (0, "rc1").
// Go ("1.21rc1") and PEP 440 ("3.13.0b2") write it without a separator.
std::optional<std::uint64_t> number_with_pre(std::string_view s, std::string& pre) {
  std::size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0) return std::nullopt;
  auto n = number(s.substr(0, i));
  if (!n) return std::nullopt;
  if (i < s.size()) {
    std::string_view rest = s.substr(i);
    if (rest.front() == '-' || rest.front() == '.' || rest.front() == '_') rest.remove_prefix(1);
    if (rest.empty()) return std::nullopt;
    for (char c : rest)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') return std::nullopt;
    pre = std::string(rest);
  }
  return n;
}

std::optional<Partial> parse_partial(std::string_view text, VersionSyntax syntax) {
  const bool strict = syntax == VersionSyntax::kStrict;
  text = str::trim(text);
  if (!text.empty() && (text.front() == 'v' || text.front() == 'V')) text.remove_prefix(1);
  if (auto plus = text.find('+'); plus != std::string_view::npos) text = text.substr(0, plus);
  if (auto bang = text.find('!'); !strict && bang != std::string_view::npos) text = text.substr(bang + 1);
  Partial p;
  if (text.empty() || is_wild(text)) return p;
  std::string pre;
  if (auto dash = text.find('-'); dash != std::string_view::npos) {
    pre = std::string(text.substr(dash + 1));
    text = text.substr(0, dash);
    if (pre.empty() || (strict && !semver_pre(pre))) return std::nullopt;
  }
  auto comps = str::split(text, '.');
  std::uint64_t fourth = 0;
  if (comps.size() > 3) {
    if (strict) return std::nullopt;
    // A fourth number is kept (OTP's 27.3.4.6, also before a pre-release or
    // a fifth part, which is dropped); PEP 440's ".post1"/".dev0" are not
    // numbers and leave three.
    for (std::size_t i = 3; i < comps.size(); ++i)
      if (!std::isalnum(static_cast<unsigned char>(comps[i].empty() ? ' ' : comps[i][0])))
        return std::nullopt;
    if (all_digits(comps[3]) && all_digits(comps[2])) {
      auto n = number(comps[3]);
      if (!n) return std::nullopt;  // too long to be a number, as for the first three
      fourth = *n;
    }
    comps.resize(3);
  }
  bool wild = false;
  for (std::size_t i = 0; i < comps.size(); ++i) {
    if (is_wild(comps[i])) {
      wild = true;
      continue;
    }
    if (wild) return std::nullopt;  // "1.x.3" is not a version
    std::string comp_pre;
    auto n = strict ? number(comps[i]) : number_with_pre(comps[i], comp_pre);
    if (!n) return std::nullopt;
    if (!comp_pre.empty()) {
      if (!pre.empty() || i + 1 != comps.size()) return std::nullopt;
      pre = comp_pre;
    }
    p.part[i] = n;
  }
  p.count = static_cast<int>(comps.size());
  p.pre = std::move(pre);
  p.fourth = fourth;
  return p;
}

Version low_of(const Partial& p) {
  return Version{p.part[0].value_or(0), p.part[1].value_or(0), p.part[2].value_or(0), p.pre, p.fourth};
}

// The first version above every version matching the partial: 1.2 → 1.3.0.
Version next_after(const Partial& p) {
  if (!p.part[1]) return Version{*p.part[0] + 1, 0, 0, ""};
  if (!p.part[2]) return Version{*p.part[0], *p.part[1] + 1, 0, ""};
  return Version{*p.part[0], *p.part[1], *p.part[2] + 1, ""};
}

Interval ge(Version v) { return Interval{Bound{std::move(v), true}, std::nullopt}; }
Interval lt(Version v) { return Interval{std::nullopt, Bound{std::move(v), false}}; }
Interval between(Version lo, Version hi_exclusive) {
  return Interval{Bound{std::move(lo), true}, Bound{std::move(hi_exclusive), false}};
}

bool lower_le(const std::optional<Bound>& a, const std::optional<Bound>& b) {
  // Is lower bound a at or below lower bound b?
  if (!a) return true;
  if (!b) return false;
  if (a->v != b->v) return a->v < b->v;
  return a->inclusive || !b->inclusive;
}
bool upper_le(const std::optional<Bound>& a, const std::optional<Bound>& b) {
  if (!b) return true;
  if (!a) return false;
  if (a->v != b->v) return a->v < b->v;
  return !a->inclusive || b->inclusive;
}

Interval meet(const Interval& a, const Interval& b) {
  Interval r;
  r.names_pre = a.names_pre || b.names_pre;
  r.lo = lower_le(a.lo, b.lo) ? b.lo : a.lo;
  r.hi = upper_le(a.hi, b.hi) ? a.hi : b.hi;
  return r;
}

bool holds(const Interval& i, const Version& v) {
  if (i.empty()) return false;
  bool above = !i.lo || (i.lo->inclusive ? !(v < i.lo->v) : i.lo->v < v);
  bool below = !i.hi || (i.hi->inclusive ? !(i.hi->v < v) : v < i.hi->v);
  return above && below;
}

// A partial version as a range bound: strictly, a pre-release follows all
// three numbers ("1.2-rc1" is no bound).
std::optional<Partial> parse_bound(std::string_view text, VersionSyntax syntax) {
  auto p = parse_partial(text, syntax);
  if (p && syntax == VersionSyntax::kStrict && !p->pre.empty() && (!p->part[1] || !p->part[2])) return std::nullopt;
  return p;
}

// The interval of one comparator: `op` applied to the version `p`.
Interval npm_interval(std::string_view op, const Partial& p) {
  if (p.any()) {
    if (op == "<" || op == ">") return Interval{Bound{Version{}, false}, Bound{Version{}, false}};
    return Interval{};
  }
  Version low = low_of(p);
  bool partial = !p.part[1] || !p.part[2];
  if (op.empty() || op == "=") {
    if (partial) return between(low, next_after(p));
    return Interval{Bound{low, true}, Bound{low, true}};
  }
  if (op == ">=") return ge(low);
  if (op == ">") {
    if (partial) return ge(next_after(p));
    return Interval{Bound{low, false}, std::nullopt};
  }
  if (op == "<") return lt(low);
  if (op == "<=") {
    if (partial) return lt(next_after(p));
    return Interval{std::nullopt, Bound{low, true}};
  }
  if (op == "~" || op == "~>") {
    Partial up = p;
    if (up.part[1]) up.part[2].reset();  // ~1.2.3 → <1.3.0; ~1 → <2.0.0
    return between(low, next_after(up));
  }
  // Caret: the left-most non-zero component may not change.
  Partial up = p;
  if (*p.part[0] != 0 || !p.part[1]) {
    up.part[1].reset();
    up.part[2].reset();
  } else if (*p.part[1] != 0 || !p.part[2]) {
    up.part[2].reset();
  }
  return between(low, next_after(up));
}

Result<Interval> npm_comparator(std::string_view tok, VersionSyntax syntax) {
  std::string_view op;
  for (std::string_view cand : {">=", "<=", "~>", ">", "<", "=", "^", "~"}) {
    if (tok.starts_with(cand)) {
      op = cand;
      break;
    }
  }
  auto p = parse_bound(tok.substr(op.size()), syntax);
  if (!p) return fail(ErrorCode::kInvalidArgument, "not a version: " + str::quote(tok));
  Interval iv = npm_interval(op, *p);
  iv.names_pre = !p->pre.empty();
  return iv;
}

Result<Range> npm_set(std::string_view set, VersionSyntax syntax) {
  auto toks = str::split_ws(set);
  // Hyphen range "A - B".
  if (toks.size() == 3 && toks[1] == "-") {
    auto a = parse_bound(toks[0], syntax);
    auto b = parse_bound(toks[2], syntax);
    if (!a || !b) return fail(ErrorCode::kInvalidArgument, "bad hyphen range " + str::quote(set));
    Interval iv;
    iv.names_pre = !a->pre.empty() || !b->pre.empty();
    if (!a->any()) iv.lo = Bound{low_of(*a), true};
    if (!b->any()) {
      if (!b->part[1] || !b->part[2])
        iv.hi = Bound{next_after(*b), false};
      else
        iv.hi = Bound{low_of(*b), true};
    }
    return Range{{iv}};
  }
  Interval acc;
  for (std::size_t i = 0; i < toks.size(); ++i) {
    std::string tok(toks[i]);
    // ">= 18" is written with a space by some authors.
    bool bare_op = !tok.empty() && tok.find_first_not_of("<>=~^") == std::string::npos;
    if (bare_op) {
      if (i + 1 >= toks.size()) return fail(ErrorCode::kInvalidArgument, "dangling operator in " + str::quote(set));
      tok += toks[++i];
    }
    STRATA_TRY(Interval iv, npm_comparator(tok, syntax));
    acc = meet(acc, iv);
  }
  return Range{{acc}};
}

}  // namespace

std::string Version::str() const {
  std::string s = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  if (fourth != 0) s += "." + std::to_string(fourth);
  if (!pre.empty()) s += "-" + pre;
  return s;
}

std::strong_ordering operator<=>(const Version& a, const Version& b) {
  if (auto c = a.major <=> b.major; c != 0) return c;
  if (auto c = a.minor <=> b.minor; c != 0) return c;
  if (auto c = a.patch <=> b.patch; c != 0) return c;
  if (auto c = a.fourth <=> b.fourth; c != 0) return c;
  if (a.pre.empty() != b.pre.empty()) return a.pre.empty() ? std::strong_ordering::greater
                                                           : std::strong_ordering::less;
  // Semver precedence: identifier by identifier, numbers numerically and below
  // words, and a prefix below what extends it (rc < rc.1).
  auto as = str::split(a.pre, '.'), bs = str::split(b.pre, '.');
  for (std::size_t i = 0; i < std::min(as.size(), bs.size()); ++i) {
    const bool an = all_digits(as[i]), bn = all_digits(bs[i]);
    if (an != bn) return an ? std::strong_ordering::less : std::strong_ordering::greater;
    if (an)
      if (auto c = as[i].size() <=> bs[i].size(); c != 0) return c;
    if (auto c = as[i] <=> bs[i]; c != 0) return c;
  }
  return as.size() <=> bs.size();
}

std::optional<Version> parse_version(std::string_view text, VersionSyntax syntax) {
  auto p = parse_partial(text, syntax);
  if (!p || p->any()) return std::nullopt;
  return low_of(*p);
}

bool Interval::empty() const {
  if (!lo || !hi) return false;
  if (lo->v != hi->v) return hi->v < lo->v;
  return !(lo->inclusive && hi->inclusive);
}

Range Range::all() { return Range{{Interval{}}}; }
Range Range::exactly(const Version& v) { return Range{{Interval{Bound{v, true}, Bound{v, true}}}}; }
Range Range::at_least(const Version& v) { return Range{{ge(v)}}; }

bool Range::is_empty() const {
  return std::all_of(any_of.begin(), any_of.end(), [](const Interval& i) { return i.empty(); });
}

bool Range::unbounded_below() const {
  return std::any_of(any_of.begin(), any_of.end(),
                     [](const Interval& i) { return !i.empty() && !i.lo; });
}

bool Range::contains(const Version& v) const {
  return std::any_of(any_of.begin(), any_of.end(), [&](const Interval& i) { return holds(i, v); });
}

bool Range::selects(const Version& v) const {
  return std::any_of(any_of.begin(), any_of.end(),
                     [&](const Interval& i) { return (v.pre.empty() || i.names_pre) && holds(i, v); });
}

std::optional<Version> Range::floor() const {
  std::optional<Version> best;
  for (const auto& i : any_of) {
    if (i.empty()) continue;
    if (!i.lo) return std::nullopt;
    Version v = i.lo->v;
    if (!i.lo->inclusive)
      v = v.fourth != 0 ? Version{v.major, v.minor, v.patch, "", v.fourth + (v.pre.empty() ? 1 : 0)}
                        : Version{v.major, v.minor, v.patch + (v.pre.empty() ? 1 : 0), ""};
    if (!best || v < *best) best = v;
  }
  return best;
}

std::string Range::str() const {
  if (is_empty()) return "<none>";
  std::vector<std::string> parts;
  for (const auto& i : any_of) {
    if (i.empty()) continue;
    if (i.lo && i.hi && i.lo->inclusive && i.hi->inclusive && i.lo->v == i.hi->v) {
      parts.push_back("=" + i.lo->v.str());
      continue;
    }
    std::string s;
    if (i.lo) s += (i.lo->inclusive ? ">=" : ">") + i.lo->v.str();
    if (i.hi) s += (s.empty() ? "" : " ") + std::string(i.hi->inclusive ? "<=" : "<") + i.hi->v.str();
    parts.push_back(s.empty() ? "*" : s);
  }
  return str::join(parts, " || ");
}

// A range is a handful of alternatives; thousands are hostile input.
constexpr std::size_t kMaxNpmRangeAlternatives = 256;

Range intersect(const Range& a, const Range& b) {
  Range r;
  std::set<std::string> seen;  // an alternative once: ">=22 <23 || =22.12.0" with =22.12.0 is =22.12.0
  for (const auto& x : a.any_of)
    for (const auto& y : b.any_of) {
      Interval m = meet(x, y);
      if (!m.empty() && seen.insert(Range{{m}}.str()).second) r.any_of.push_back(m);
    }
  // Two ranges of many alternatives meet in up to their product, and a
  // chain of intersections multiplies again: past the cap a parsed range
  // has, the result is the one interval that spans them (the same floor,
  // admitting what lies between), so no input grows it without bound.
  if (r.any_of.size() > kMaxNpmRangeAlternatives) {
    Interval hull = r.any_of.front();
    for (const auto& i : r.any_of) {
      if (!i.lo || (hull.lo && (i.lo->v < hull.lo->v || (i.lo->v == hull.lo->v && i.lo->inclusive)))) hull.lo = i.lo;
      if (!i.hi || (hull.hi && (hull.hi->v < i.hi->v || (i.hi->v == hull.hi->v && i.hi->inclusive)))) hull.hi = i.hi;
      hull.names_pre = hull.names_pre || i.names_pre;
    }
    r.any_of = {hull};
  }
  return r;
}

Result<Range> parse_npm_range(std::string_view text, VersionSyntax syntax) {
  text = str::trim(text);
  Range out;
  std::size_t start = 0;
  while (true) {
    std::size_t bar = text.find("||", start);
    std::string_view set = str::trim(text.substr(start, bar == std::string_view::npos ? text.npos : bar - start));
    if (syntax == VersionSyntax::kStrict && set.empty())
      return fail(ErrorCode::kInvalidArgument, "an empty alternative in " + str::quote(text));
    if (set.empty() || (set == "latest" && syntax == VersionSyntax::kLenient) || set == "*") {
      out.any_of.push_back(Interval{});
    } else {
      STRATA_TRY(Range r, npm_set(set, syntax));
      out.any_of.insert(out.any_of.end(), r.any_of.begin(), r.any_of.end());
    }
    if (bar == std::string_view::npos) break;
    // A range is a handful of alternatives; thousands are hostile input, and
    // every later intersection would pay for each.
    if (out.any_of.size() >= kMaxNpmRangeAlternatives)
      return fail(ErrorCode::kInvalidArgument, "more than " + std::to_string(kMaxNpmRangeAlternatives) +
                                                   " alternatives (||) in the range " +
                                                   str::quote(text.substr(0, 60)) + "…");
    start = bar + 2;
  }
  return out;
}

Result<Range> parse_pep440(std::string_view text) {
  text = str::trim(text);
  // Poetry writes npm-like carets, tildes and "||" in the same fields.
  bool poetry = text.find("||") != text.npos || text.starts_with('^') ||
                (text.starts_with('~') && !text.starts_with("~="));
  if (poetry) {
    std::string t(text);
    std::replace(t.begin(), t.end(), ',', ' ');
    return parse_npm_range(t);
  }
  Interval acc;
  for (std::string_view spec : str::split(text, ',')) {
    spec = str::trim(spec);
    if (spec.empty() || spec == "*") continue;
    std::string_view op;
    for (std::string_view cand : {"===", "~=", "==", "!=", "<=", ">=", "<", ">"}) {
      if (spec.starts_with(cand)) {
        op = cand;
        break;
      }
    }
    if (op.empty()) return fail(ErrorCode::kInvalidArgument, "no operator in specifier " + str::quote(spec));
    std::string_view ver = str::trim(spec.substr(op.size()));
    bool star = ver.ends_with(".*");
    if (star) ver.remove_suffix(2);
    auto p = parse_partial(ver, VersionSyntax::kLenient);
    if (!p || p->any()) return fail(ErrorCode::kInvalidArgument, "bad version in specifier " + str::quote(spec));
    if (star && op != "==" && op != "!=")
      return fail(ErrorCode::kInvalidArgument, "wildcard only allowed with == or != in " + str::quote(spec));
    if (op == "!=") continue;  // excludes points; does not move a floor
    Version low = low_of(*p);
    Interval iv;
    if (op == "==" || op == "===") {
      iv = star ? between(low, next_after(*p)) : Interval{Bound{low, true}, Bound{low, true}};
    } else if (op == "~=") {
      if (p->count < 2) return fail(ErrorCode::kInvalidArgument, "~= needs two components in " + str::quote(spec));
      Partial up = *p;
      up.part[p->count - 1].reset();
      if (p->count == 3) up.part[2].reset();
      iv = between(low, next_after(up));
    } else if (op == ">=") {
      iv = ge(low);
    } else if (op == ">") {
      iv = Interval{Bound{low, false}, std::nullopt};
    } else if (op == "<") {
      iv = lt(low);
    } else {
      iv = Interval{std::nullopt, Bound{low, true}};
    }
    iv.names_pre = !p->pre.empty();
    acc = meet(acc, iv);
  }
  return Range{{acc}};
}

Result<Range> parse_version_line(std::string_view text) {
  auto p = parse_partial(text, VersionSyntax::kLenient);
  if (!p) return fail(ErrorCode::kInvalidArgument, "not a version: " + str::quote(text));
  if (p->any()) return Range::all();
  if (p->part[1] && p->part[2]) return Range::exactly(low_of(*p));
  return Range{{between(low_of(*p), next_after(*p))}};
}

}  // namespace strata
