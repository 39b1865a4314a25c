#include "contract/knowledge/ecosystem_versions.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <vector>

#include "util/strings.hpp"

namespace strata::contract {
namespace {

bool ev_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<int> ev_small_number(std::string_view s) {
  if (s.empty() || s.size() > 4 || !std::all_of(s.begin(), s.end(), ev_digit)) return std::nullopt;
  int v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

Result<Range> ev_bad(std::string_view what, std::string_view text) {
  return fail(ErrorCode::kInvalidArgument, std::string(what) + " " + str::quote(std::string(text.substr(0, 80))));
}

// The dotted numeric components at the start of `s` ("21.0.2+13" → 3).
std::size_t ev_components(std::string_view s) {
  std::size_t n = 0;
  for (auto part : str::split(s, '.')) {
    if (part.empty() || !std::all_of(part.begin(), part.end(), ev_digit)) break;
    ++n;
  }
  return n;
}

}  // namespace

std::optional<int> java_release(std::string_view text) {
  std::string_view t = str::trim(text);
  if (t.size() >= 2 && (t.front() == '"' || t.front() == '\'') && t.back() == t.front()) t = t.substr(1, t.size() - 2);
  if (t.starts_with("JavaVersion.")) t.remove_prefix(12);
  std::string s(t);
  if (s.starts_with("VERSION_")) {
    s.erase(0, 8);
    std::replace(s.begin(), s.end(), '_', '.');
  }
  if (s.starts_with("1.")) {  // 1.5 … 1.8: the old spelling of 5 … 8
    auto v = ev_small_number(std::string_view(s).substr(2));
    if (v && *v >= 1 && *v <= 8) return v;
    return std::nullopt;
  }
  auto v = ev_small_number(s);
  if (v && *v >= 5 && *v < 1000) return v;
  return std::nullopt;
}

Result<Range> read_java_version(std::string_view text, std::string& vendor) {
  std::string_view t = str::trim(text);
  if (t.empty()) return ev_bad("no Java version in", t);
  std::string s(t);
  // A vendor before the version: "temurin-21.0.2+13.0.LTS", "openjdk64-17.0.9", "zulu-17".
  if (!ev_digit(s.front())) {
    std::size_t i = 0;
    while (i < s.size() && !(ev_digit(s[i]) && i > 0 && (s[i - 1] == '-' || s[i - 1] == '@'))) ++i;
    if (i == s.size()) return ev_bad("no Java version in", t);
    vendor = s.substr(0, i - 1);
    s.erase(0, i);
  }
  // sdkman's "21.0.2-tem", a build after '+': the vendor and build are not the version.
  if (auto dash = s.find('-'); dash != std::string::npos) {
    if (vendor.empty()) vendor = s.substr(dash + 1);
    s.erase(dash);
  }
  if (auto plus = s.find('+'); plus != std::string::npos) s.erase(plus);
  if (s.starts_with("1.")) {  // "1.8", "1.8.0_392": Java 8 (update 392)
    auto rest = s.substr(2);
    auto dot = rest.find('.');
    auto major = ev_small_number(std::string_view(rest).substr(0, dot));
    if (!major || *major > 8) return ev_bad("not a Java version:", t);
    std::replace(rest.begin(), rest.end(), '_', '.');
    s = rest;
  }
  std::size_t n = ev_components(s);
  if (n == 0) return ev_bad("not a Java version:", t);
  std::vector<std::string> parts;
  for (auto p : str::split(s, '.')) parts.emplace_back(p);
  parts.resize(std::min<std::size_t>(n, 3));  // Corretto's 17.0.9.8.1: the release is 17.0.9
  return parse_version_line(str::join(parts, "."));
}

Result<Range> parse_elixir_requirement(std::string_view text) {
  std::string_view t = str::trim(text);
  if (t.empty()) return ev_bad("empty Elixir requirement", t);
  std::vector<std::string> alternatives;
  std::string rest(t);
  auto split_word = [](const std::string& s, std::string_view word) {
    std::vector<std::string> out;
    std::size_t from = 0;
    const std::string sep = " " + std::string(word) + " ";
    for (auto at = s.find(sep); at != std::string::npos; at = s.find(sep, from)) {
      out.push_back(s.substr(from, at - from));
      from = at + sep.size();
    }
    out.push_back(s.substr(from));
    return out;
  };
  for (const auto& alt : split_word(rest, "or")) {
    std::vector<std::string> clauses;
    for (const auto& raw : split_word(alt, "and")) {
      std::string_view c = str::trim(raw);
      std::string_view op = "==";
      for (std::string_view o : {"~>", ">=", "<=", "==", "!=", ">", "<"})
        if (c.starts_with(o)) {
          op = o;
          c = str::trim(c.substr(o.size()));
          break;
        }
      auto v = parse_version(c, VersionSyntax::kStrict);
      std::size_t n = ev_components(c.substr(0, c.find('-')));
      if (!v || n < 2) return ev_bad("not an Elixir version requirement:", t);
      if (op == "!=") continue;  // excludes one release: no bound of the range
      if (op == "~>") {
        Version hi = n == 2 ? Version{v->major + 1, 0, 0, ""} : Version{v->major, v->minor + 1, 0, ""};
        clauses.push_back(">=" + v->str() + " <" + hi.str());
      } else {
        clauses.push_back((op == "==" ? std::string("=") : std::string(op)) + v->str());
      }
    }
    alternatives.push_back(clauses.empty() ? std::string("*") : str::join(clauses, " "));
  }
  return parse_npm_range(str::join(alternatives, " || "), VersionSyntax::kStrict);
}

Result<Range> read_beam_version(std::string_view text) {
  std::string s(str::trim(text));
  if (s.starts_with("OTP-")) s.erase(0, 4);
  if (auto otp = s.find("-otp-"); otp != std::string::npos) s.erase(otp);
  if (ev_components(s) == 0 || ev_components(s) != str::split(s, '.').size()) return ev_bad("not a version:", text);
  return parse_version_line(s);
}

Result<Range> dotnet_sdk_range(std::string_view version, std::string_view roll_forward) {
  auto v = parse_version(str::trim(version), VersionSyntax::kStrict);
  if (!v || ev_components(str::trim(version)) != 3) return ev_bad("not a .NET SDK version (major.minor.patch):", version);
  // A patch below 100 names no SDK (an SDK's patch is its feature band, 100
  // or more), but the host compares it as a version all the same: "10.0.0"
  // with rollForward latestFeature, latestMinor or latestMajor takes the SDKs
  // above it; with a patch policy (the default) or disable, none.
  std::string p(str::trim(roll_forward));
  std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  Range r = Range::at_least(*v);
  auto below = [&](Version hi) {
    Range out;
    Interval i;
    i.lo = Bound{*v, true};
    i.hi = Bound{hi, false};
    out.any_of.push_back(i);
    return out;
  };
  if (v->patch < 100 && (p.empty() || p == "patch" || p == "latestpatch" || p == "disable"))
    return ev_bad("not a .NET SDK version (an SDK's patch is its feature band, 100 or more, and rollForward " +
                      (p.empty() ? std::string("latestPatch") : std::string(roll_forward)) + " takes no other band):",
                  version);
  if (p.empty() || p == "patch" || p == "latestpatch") return below(Version{v->major, v->minor, (v->patch / 100 + 1) * 100, ""});
  if (p == "feature" || p == "latestfeature") return below(Version{v->major, v->minor + 1, 0, ""});
  if (p == "minor" || p == "latestminor") return below(Version{v->major + 1, 0, 0, ""});
  if (p == "major" || p == "latestmajor") return r;
  if (p == "disable") return Range::exactly(*v);
  return ev_bad("not a rollForward policy:", roll_forward);
}

std::optional<Version> dotnet_target_version(std::string_view tfm) {
  std::string_view t = str::trim(tfm);
  if (auto dash = t.find('-'); dash != std::string_view::npos) t = t.substr(0, dash);  // net8.0-windows
  if (t.starts_with("netcoreapp")) t.remove_prefix(10);
  else if (t.starts_with("net") && !t.starts_with("netstandard")) t.remove_prefix(3);
  else return std::nullopt;
  // net48, net472: .NET Framework (no dot); net5.0 and later have one.
  if (t.find('.') == std::string_view::npos || ev_components(t) != 2) return std::nullopt;
  return parse_version(t, VersionSyntax::kStrict);
}

}  // namespace strata::contract
