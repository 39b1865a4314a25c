#include "layer/sbom/dep5.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>
#include <vector>

#include "layer/debian/deb822.hpp"
#include "util/strings.hpp"

namespace strata::layer::sbom {
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

// One License line ("GPL-2+ or Artistic, and BSD-3-clause") as an SPDX
// expression; a comma closes a group, which the next operator joins whole.
std::string expression_of(std::string_view line) {
  std::vector<std::string> words;
  for (auto w : str::split_ws(line)) words.emplace_back(w);
  std::string out;        // the groups closed so far
  bool out_compound = false;
  std::string pending_op;  // the operator that joins the current group to `out`
  std::string group;
  bool group_compound = false;
  std::string term;
  auto close_term = [&] {
    if (term.empty()) return;
    if (!group.empty()) group_compound = true;
    group += spdx_license_id(term);
    term.clear();
  };
  auto close_group = [&] {
    close_term();
    if (group.empty()) return;
    if (out.empty()) {
      out = group;
      out_compound = group_compound;
    } else {
      out = (out_compound ? "(" + out + ")" : out) + " " + (pending_op.empty() ? "AND" : pending_op) + " " +
            (group_compound ? "(" + group + ")" : group);
      out_compound = true;
    }
    group.clear();
    group_compound = false;
    pending_op.clear();
  };
  for (auto& w : words) {
    bool comma = w.ends_with(',');
    if (comma) w.pop_back();
    if (is_operator(w, "or") || is_operator(w, "and")) {
      std::string op = is_operator(w, "or") ? "OR" : "AND";
      if (term.empty() && group.empty()) pending_op = op;  // ", and X": joins the next group
      else {
        close_term();
        group += " " + op + " ";
      }
    } else if (!w.empty()) {
      term += (term.empty() ? "" : " ") + w;  // "GPL-2+ with OpenSSL exception" stays one term
    }
    if (comma) close_group();
  }
  close_group();
  // "A OR" (a dangling operator) is not an expression: keep what precedes it.
  while (out.ends_with(" OR ") || out.ends_with(" AND ")) out.erase(out.rfind(' ', out.size() - 2));
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
  std::vector<std::string> seen;
  for (std::size_t i = 0; i < stanzas->size(); ++i) {
    const auto& s = (*stanzas)[i];
    if (i != 0 && !s.get("Files")) continue;  // a stand-alone License stanza defines a name, it applies to nothing
    auto license = s.get("License");
    if (!license) continue;
    std::string_view first = *license;
    first = first.substr(0, first.find('\n'));
    std::string e = expression_of(first);
    if (!e.empty() && std::find(seen.begin(), seen.end(), e) == seen.end()) seen.push_back(std::move(e));
  }
  if (seen.empty()) return std::nullopt;
  if (seen.size() == 1) return seen.front();
  std::string out;
  for (const auto& e : seen) out += (out.empty() ? "" : " AND ") + (compound(e) ? "(" + e + ")" : e);
  return out;
}

}  // namespace strata::layer::sbom
