#include "contract/model/public_suffix.hpp"

#include <string>
#include <unordered_set>
#include <vector>

#include "contract/model/public_suffix_data.hpp"
#include "contract/model/utf8.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

// RFC 3492 Punycode of one label's code points (all of them, the basic
// ones first), without the "xn--" prefix.
std::string punycode(const std::u32string& in) {
  constexpr char32_t kBase = 36, kTmin = 1, kTmax = 26, kSkew = 38, kDamp = 700;
  auto digit = [](char32_t d) { return static_cast<char>(d < 26 ? 'a' + d : '0' + (d - 26)); };
  auto adapt = [&](char32_t delta, char32_t points, bool first) {
    delta = first ? delta / kDamp : delta / 2;
    delta += delta / points;
    char32_t k = 0;
    while (delta > ((kBase - kTmin) * kTmax) / 2) {
      delta /= kBase - kTmin;
      k += kBase;
    }
    return k + (((kBase - kTmin + 1) * delta) / (delta + kSkew));
  };
  std::string out;
  for (char32_t c : in)
    if (c < 0x80) out += static_cast<char>(c);
  char32_t b = static_cast<char32_t>(out.size()), h = b;
  if (b > 0) out += '-';
  char32_t n = 0x80, delta = 0, bias = 72;
  while (h < in.size()) {
    char32_t m = 0x10FFFF + 1;
    for (char32_t c : in)
      if (c >= n && c < m) m = c;
    delta += (m - n) * (h + 1);
    n = m;
    for (char32_t c : in) {
      if (c < n) ++delta;
      if (c != n) continue;
      char32_t q = delta;
      for (char32_t k = kBase;; k += kBase) {
        char32_t t = k <= bias ? kTmin : k >= bias + kTmax ? kTmax : k - bias;
        if (q < t) break;
        out += digit(t + (q - t) % (kBase - t));
        q = (q - t) / (kBase - t);
      }
      out += digit(q);
      bias = adapt(delta, h + 1, h == b);
      delta = 0;
      ++h;
    }
    ++delta;
    ++n;
  }
  return out;
}

// "公司.cn" → "xn--55qx5d.cn": host names reach the rule in their xn-- form.
std::string ascii_rule(std::string_view rule) {
  std::string out;
  for (auto label : str::split(rule, '.')) {
    if (!out.empty()) out += '.';
    std::u32string cps;
    bool ascii = true;
    for (std::size_t i = 0; i < label.size();) {
      char32_t c = utf8::next(label, i);
      ascii = ascii && c < 0x80;
      cps += c;
    }
    out += ascii ? std::string(label) : "xn--" + punycode(cps);
  }
  return out;
}

struct List {
  std::unordered_set<std::string> rules;       // "co.uk"
  std::unordered_set<std::string> wildcards;   // "ck" for "*.ck"
  std::unordered_set<std::string> exceptions;  // "www.ck" for "!www.ck"
  std::unordered_set<std::string> ancestors;   // every name a rule ends in: "uk", "co.uk", "ck"
};

void add_ancestors(List& l, std::string_view name) {
  for (;;) {
    l.ancestors.emplace(name);
    auto dot = name.find('.');
    if (dot == std::string_view::npos) return;
    name.remove_prefix(dot + 1);
  }
}

const List& list() {
  static const List l = [] {
    List out;
    for (std::size_t i = 0; i < kPublicSuffixRuleCount; ++i) {
      std::string rule = ascii_rule(kPublicSuffixRules[i]);
      if (rule.starts_with('!')) {
        out.exceptions.insert(rule.substr(1));
      } else if (rule.starts_with("*.")) {
        add_ancestors(out, std::string_view(rule).substr(2));
        out.wildcards.insert(rule.substr(2));
      } else {
        add_ancestors(out, rule);
        out.rules.insert(std::move(rule));
      }
    }
    return out;
  }();
  return l;
}

// The suffixes of `name` from the longest: "a.b.c", "b.c", "c".
std::vector<std::string_view> suffixes(std::string_view name) {
  std::vector<std::string_view> out;
  for (;;) {
    out.push_back(name);
    auto dot = name.find('.');
    if (dot == std::string_view::npos) return out;
    name.remove_prefix(dot + 1);
  }
}

}  // namespace

std::string_view public_suffix(std::string_view name) {
  const List& l = list();
  auto s = suffixes(name);
  // An exception rule wins over every other match: its public suffix is the
  // rule without its first label.
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (l.exceptions.count(std::string(s[i]))) return s[i + 1];
  // Otherwise the matching rule with the most labels: s[i] matches "s[i]"
  // itself, or "*.s[i+1]".
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (l.rules.count(std::string(s[i]))) return s[i];
    if (i + 1 < s.size() && l.wildcards.count(std::string(s[i + 1]))) return s[i];
  }
  return s.back();  // the "*" rule: the last label
}

bool is_public_suffix(std::string_view name) { return public_suffix(name) == name; }

bool is_at_or_above_public_suffix(std::string_view name) {
  return is_public_suffix(name) || list().ancestors.count(std::string(name)) > 0;
}

bool is_listed_tld(std::string_view label) {
  return label.find('.') == std::string_view::npos && list().ancestors.count(std::string(label)) > 0;
}

std::string_view public_suffix_list_as_of() { return kPublicSuffixListAsOf; }

}  // namespace strata::contract
