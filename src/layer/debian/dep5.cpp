#include "layer/debian/dep5.hpp"

#include <algorithm>
#include <array>
#include <set>
#include <cctype>
#include <utility>
#include <vector>

#include "layer/debian/deb822.hpp"
#include "util/strings.hpp"

namespace strata::layer {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Debian's short names (copyright-format 1.0, "License specification", and
// the spellings Debian 12's files use) that are SPDX identifiers under
// another name or case. A trailing "+" (any later version) is handled by
// the caller for the families that have "-or-later" identifiers.
constexpr std::array<std::pair<std::string_view, std::string_view>, 40> kSpdxIds{{
    {"expat", "MIT"},
    {"mit", "MIT"},
    {"apache-1.0", "Apache-1.0"},
    {"apache-1.1", "Apache-1.1"},
    {"apache-2.0", "Apache-2.0"},
    {"artistic", "Artistic-1.0"},
    {"artistic-1.0", "Artistic-1.0"},
    {"artistic-2.0", "Artistic-2.0"},
    {"bsd-2-clause", "BSD-2-Clause"},
    {"bsd-3-clause", "BSD-3-Clause"},
    {"bsd-4-clause", "BSD-4-Clause"},
    {"isc", "ISC"},
    {"zlib", "Zlib"},
    {"bsl-1.0", "BSL-1.0"},
    {"cc0-1.0", "CC0-1.0"},
    {"cc0", "CC0-1.0"},
    {"cc-by-3.0", "CC-BY-3.0"},
    {"cc-by-4.0", "CC-BY-4.0"},
    {"cc-by-sa-3.0", "CC-BY-SA-3.0"},
    {"cc-by-sa-4.0", "CC-BY-SA-4.0"},
    {"mpl-1.1", "MPL-1.1"},
    {"mpl-2.0", "MPL-2.0"},
    {"epl-1.0", "EPL-1.0"},
    {"epl-2.0", "EPL-2.0"},
    {"openssl", "OpenSSL"},
    {"python-2.0", "Python-2.0"},
    {"psf-2", "PSF-2.0"},
    {"psf-2.0", "PSF-2.0"},
    {"x11", "X11"},
    {"curl", "curl"},
    {"unicode-dfs-2016", "Unicode-DFS-2016"},
    {"ofl-1.1", "OFL-1.1"},
    {"wtfpl", "WTFPL"},
    {"0bsd", "0BSD"},
    {"unlicense", "Unlicense"},
    {"ruby", "Ruby"},
    {"php-3.01", "PHP-3.01"},
    {"postgresql", "PostgreSQL"},
    {"tcl", "TCL"},
    {"ftl", "FTL"},
}};

// Families whose Debian names are "<family>-<version>[+]" and whose SPDX
// identifiers are "<family>-<version>.0-only|-or-later" (LGPL-2.1 keeps its
// minor). A bare family name ("GPL") means any version.
constexpr std::array<std::pair<std::string_view, std::string_view>, 5> kFamilies{{
    {"gpl", "GPL"}, {"lgpl", "LGPL"}, {"agpl", "AGPL"}, {"gfdl", "GFDL"}, {"fdl", "GFDL"},
}};

std::optional<std::string> family_id(std::string_view name) {
  std::string l = lower(name);
  bool later = false;
  if (l.ends_with("+")) {
    later = true;
    l.pop_back();
  }
  for (const auto& [debian, spdx] : kFamilies) {
    if (l == debian) return std::string(spdx) + (spdx == "GFDL" ? "-1.1" : spdx == "AGPL" ? "-1.0" : spdx == "LGPL" ? "-2.0" : "-1.0") + "-or-later";
    if (!l.starts_with(std::string(debian) + "-")) continue;
    std::string v = l.substr(debian.size() + 1);
    if (v.empty() || !std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)) || c == '.'; }))
      return std::nullopt;
    if (v.find('.') == std::string::npos) v += ".0";
    static constexpr std::array<std::string_view, 11> kKnown{"GPL-1.0", "GPL-2.0", "GPL-3.0", "LGPL-2.0", "LGPL-2.1",
                                                               "LGPL-3.0", "AGPL-1.0", "AGPL-3.0", "GFDL-1.1",
                                                               "GFDL-1.2", "GFDL-1.3"};
    std::string base = std::string(spdx) + "-" + v;
    if (std::find(kKnown.begin(), kKnown.end(), base) == kKnown.end()) return std::nullopt;
    return base + (later ? "-or-later" : "-only");
  }
  return std::nullopt;
}

bool machine_readable(const Deb822Stanza& header) {
  auto format = header.get("Format");
  if (!format) return false;
  std::string f = lower(str::trim(*format));
  return f.find("copyright-format/1.0") != std::string::npos || f.find("dep5") != std::string::npos ||
         f.find("dep-5") != std::string::npos;
}

bool is_operator(std::string_view word, std::string_view op) { return lower(word) == op; }

// Bounds on what one copyright file may make a licence expression of: a
// real one names a few dozen licences (perl's, the longest in Debian 12,
// 40); past these the file says nothing a reader could use.
constexpr std::size_t kMaxWordsPerLine = 256;
constexpr std::size_t kMaxExpressions = 128;
constexpr std::size_t kMaxExpressionBytes = 8192;

// One License line ("GPL-2+ or Artistic, and BSD-3-clause") as an SPDX
// expression; a comma closes a group, which the operator after it joins
// whole. Operators with no licence on one side are dropped, so the result
// is always well-formed; nullopt for a line over the bounds.
std::optional<std::string> expression_of(std::string_view line) {
  struct Group {
    std::string join;                // the operator that joins it to the groups before ("" for the first)
    std::vector<std::string> items;  // term, op, term, op, term …
  };
  std::vector<Group> groups(1);
  std::string term;
  std::size_t words = 0;
  auto close_term = [&] {
    if (term.empty()) return;
    auto& items = groups.back().items;
    if (!items.empty() && items.back() != "AND" && items.back() != "OR") items.push_back("AND");  // two names, no operator
    items.push_back(spdx_license_id(term));
    term.clear();
  };
  for (auto w : str::split_ws(line)) {
    if (++words > kMaxWordsPerLine) return std::nullopt;
    bool comma = w.ends_with(',');
    if (comma) w.remove_suffix(1);
    if (is_operator(w, "or") || is_operator(w, "and")) {
      close_term();
      std::string op = is_operator(w, "or") ? "OR" : "AND";
      auto& g = groups.back();
      if (g.items.empty()) g.join = op;                                          // ", and X": joins the next group
      else if (g.items.back() == "AND" || g.items.back() == "OR") g.items.back() = op;  // "and and": one
      else g.items.push_back(op);
    } else if (!w.empty()) {
      term += (term.empty() ? "" : " ") + std::string(w);  // "GPL-2+ with OpenSSL exception" stays one term
    }
    if (comma) {
      close_term();
      if (!groups.back().items.empty()) groups.emplace_back();
    }
  }
  close_term();
  std::string out;
  bool out_compound = false;
  for (auto& g : groups) {
    while (!g.items.empty() && (g.items.back() == "AND" || g.items.back() == "OR")) g.items.pop_back();
    if (g.items.empty()) continue;
    std::string text;
    for (const auto& item : g.items) text += (text.empty() ? "" : " ") + item;
    bool compound = g.items.size() > 1;
    if (out.empty()) {
      out = std::move(text);
      out_compound = compound;
    } else {
      out = (out_compound ? "(" + out + ")" : out) + " " + (g.join.empty() ? "AND" : g.join) + " " +
            (compound ? "(" + text + ")" : text);
      out_compound = true;
    }
    if (out.size() > kMaxExpressionBytes) return std::nullopt;
  }
  return out;
}

bool compound(const std::string& e) { return e.find(' ') != std::string::npos; }

}  // namespace

bool is_license_ref(std::string_view id) { return id.starts_with("LicenseRef-"); }

std::string spdx_license_id(std::string_view debian_name) {
  std::string name(str::trim(debian_name));
  if (name.empty()) return {};
  std::string l = lower(name);
  for (const auto& [debian, spdx] : kSpdxIds)
    if (l == debian) return std::string(spdx);
  if (auto f = family_id(name)) return *f;
  // Already an SPDX identifier of those families ("GPL-2.0-only", "LGPL-2.1-or-later").
  for (std::string_view suffix : {"-only", "-or-later"}) {
    if (!l.ends_with(suffix)) continue;
    auto base = name.substr(0, name.size() - suffix.size());
    if (base.find('.') == std::string::npos || base.ends_with('+')) continue;
    if (auto f = family_id(base)) return f->substr(0, f->size() - std::string_view("-only").size()) + std::string(suffix);
  }
  // "GFDL-NIV-1.3+" → "LicenseRef-GFDL-NIV-1.3-or-later"; "GPL-2+ with Foo
  // exception" → "LicenseRef-GPL-2-or-later-with-Foo-exception".
  std::string ref = "LicenseRef-";
  for (char c : name) {
    if (c == '+') ref += "-or-later";
    else ref += std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '-' ? c : '-';
  }
  return ref;
}

std::optional<std::string> dep5_license(std::string_view copyright) {
  Deb822Options opts;
  opts.allow_comments = true;  // the format allows none, but a stray '#' line is no reason to drop the file
  auto stanzas = parse_deb822(copyright, "copyright", opts);
  if (!stanzas || stanzas->empty() || !machine_readable(stanzas->front())) return std::nullopt;
  std::vector<std::string> seen;  // in the file's order
  std::set<std::string> known;
  for (std::size_t i = 0; i < stanzas->size(); ++i) {
    const auto& s = (*stanzas)[i];
    if (i != 0 && !s.get("Files")) continue;  // a stand-alone License stanza defines a name, it applies to nothing
    auto license = s.get("License");
    if (!license) continue;
    std::string_view first = *license;
    first = first.substr(0, first.find('\n'));
    auto e = expression_of(first);
    if (!e) return std::nullopt;
    if (e->empty() || !known.insert(*e).second) continue;
    if (seen.size() == kMaxExpressions) return std::nullopt;
    seen.push_back(std::move(*e));
  }
  if (seen.empty()) return std::nullopt;
  if (seen.size() == 1) return seen.front();
  std::string out;
  for (const auto& e : seen) {
    out += (out.empty() ? "" : " AND ") + (compound(e) ? "(" + e + ")" : e);
    if (out.size() > kMaxExpressionBytes) return std::nullopt;
  }
  return out;
}

bool is_copyright_path(std::string_view p) {
  constexpr std::string_view kDoc = "usr/share/doc/";
  constexpr std::string_view kFile = "/copyright";
  if (!p.starts_with(kDoc) || !p.ends_with(kFile) || p.size() <= kDoc.size() + kFile.size()) return false;
  auto name = p.substr(kDoc.size(), p.size() - kDoc.size() - kFile.size());
  return name.find('/') == std::string_view::npos;
}

std::string copyright_summary(std::string_view content) {
  if (content.size() > kMaxCopyrightBytes) return {};
  return dep5_license(content).value_or("");
}

}  // namespace strata::layer
