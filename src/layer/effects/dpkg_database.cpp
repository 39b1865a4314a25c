#include "layer/effects/dpkg_database.hpp"

#include <algorithm>
#include <array>
#include <map>

#include "layer/deb/deb_reader.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

// dpkg lib/dpkg/parse.c fieldinfos[] order.
constexpr std::array<std::string_view, 28> kFieldOrder{
    "Package",   "Essential",   "Protected", "Status",      "Priority",   "Section",          "Installed-Size",
    "Origin",    "Maintainer",  "Bugs",      "Architecture", "Multi-Arch", "Source",          "Version",
    "Config-Version", "Replaces", "Provides", "Depends",     "Pre-Depends", "Recommends",      "Suggests",
    "Breaks",    "Conflicts",   "Enhances",  "Conffiles",   "Description", "Triggers-Pending", "Triggers-Awaited"};

std::size_t field_rank(std::string_view name) {
  for (std::size_t i = 0; i < kFieldOrder.size(); ++i) {
    if (str::lower(kFieldOrder[i]) == str::lower(name)) return i;
  }
  return kFieldOrder.size();
}

std::string stanza_key(const Deb822Stanza& s) {
  return std::string(s.get("Package").value_or("")) + "\n" + std::string(s.get("Architecture").value_or(""));
}

}  // namespace

std::string info_name(const FragmentInfo& p) {
  return p.multi_arch == "same" ? p.package + ":" + p.architecture : p.package;
}

std::string format_deb822(const std::vector<Deb822Stanza>& stanzas) {
  std::string out;
  for (const auto& s : stanzas) {
    for (const auto& f : s.fields) {
      auto lines = str::split(f.value, '\n');
      out += f.name + ":";
      if (!lines.empty() && !lines[0].empty()) out += " " + std::string(lines[0]);
      out += "\n";
      for (std::size_t i = 1; i < lines.size(); ++i) {
        out += lines[i].empty() ? std::string(" .") : " " + std::string(lines[i]);
        out += "\n";
      }
    }
    out += "\n";
  }
  return out;
}

Result<Deb822Stanza> status_stanza(const FragmentInfo& p) {
  STRATA_TRY(auto stanzas, parse_deb822(p.control, p.package + " control"));
  if (stanzas.size() != 1) return fail(ErrorCode::kInvalidArgument, p.package + ": control must be one stanza");
  Deb822Stanza s = std::move(stanzas.front());
  std::erase_if(s.fields, [](const Deb822Field& f) {
    return str::lower(f.name) == "status" || str::lower(f.name) == "conffiles";
  });
  s.fields.push_back({"Status", "install ok installed", 0});
  if (auto cf = p.control_files.find("conffiles"); cf != p.control_files.end()) {
    const auto& md5 = p.conffile_md5;
    std::string value;
    for (auto line : str::split(cf->second, '\n')) {
      auto path = str::trim(line);
      if (path.empty()) continue;
      if (path.starts_with("remove-on-upgrade ")) continue;  // a flag for removed conffiles, not a file
      auto it = md5.find(std::string(path));
      value += "\n" + std::string(path) + " " + (it == md5.end() ? std::string("newconffile") : it->second);
    }
    if (!value.empty()) s.fields.push_back({"Conffiles", value, 0});
  }
  std::stable_sort(s.fields.begin(), s.fields.end(), [](const Deb822Field& a, const Deb822Field& b) {
    return field_rank(a.name) < field_rank(b.name);
  });
  return s;
}

Result<std::vector<EffectFile>> dpkg_database_effects(const oci::ImageFilesystem& base,
                                                      const std::vector<const FragmentInfo*>& packages,
                                                      const std::set<std::string>& requested, std::int64_t epoch) {
  std::vector<EffectFile> out;
  // status
  std::map<std::string, Deb822Stanza> status;
  if (base.exists("var/lib/dpkg/status")) {
    STRATA_TRY(std::string text, base.read_small_file("var/lib/dpkg/status"));
    STRATA_TRY(auto stanzas, parse_deb822(text, "/var/lib/dpkg/status of the base"));
    for (auto& s : stanzas) status[stanza_key(s)] = std::move(s);
  }
  for (const FragmentInfo* p : packages) {
    STRATA_TRY(auto s, status_stanza(*p));
    status[stanza_key(s)] = std::move(s);
  }
  std::vector<Deb822Stanza> sorted;
  for (auto& [k, s] : status) sorted.push_back(std::move(s));
  out.push_back(effect_file("var/lib/dpkg/status", format_deb822(sorted), 0644, epoch));

  // info/: "format" 1 is the multiarch layout ("pkg:arch.list"); without it
  // dpkg reads the old one and misses the Multi-Arch: same info files.
  if (!base.exists("var/lib/dpkg/info/format")) out.push_back(effect_file("var/lib/dpkg/info/format", "1\n", 0644, epoch));
  for (const FragmentInfo* p : packages) {
    std::string stem = "var/lib/dpkg/info/" + info_name(*p) + ".";
    std::string list;
    for (const auto& l : p->list) list += l + "\n";
    out.push_back(effect_file(stem + "list", std::move(list), 0644, epoch));
    out.push_back(effect_file(stem + "md5sums", p->md5sums, 0644, epoch));
    for (const auto& [name, content] : p->control_files) {
      if (name == "md5sums" || !is_info_control_file(name)) continue;
      bool script = name == "preinst" || name == "postinst" || name == "prerm" || name == "postrm" || name == "config";
      out.push_back(effect_file(stem + name, content, script ? 0755 : 0644, epoch));
    }
  }

  // extended_states
  std::map<std::string, Deb822Stanza> states;
  if (base.exists("var/lib/apt/extended_states")) {
    STRATA_TRY(std::string text, base.read_small_file("var/lib/apt/extended_states"));
    STRATA_TRY(auto stanzas, parse_deb822(text, "/var/lib/apt/extended_states of the base"));
    for (auto& s : stanzas) states[stanza_key(s)] = std::move(s);
  }
  for (const FragmentInfo* p : packages) {
    if (requested.contains(p->package) || requested.contains(p->package + ":" + p->architecture)) {
      states.erase(p->package + "\n" + p->architecture);  // asked for: manually installed
      continue;
    }
    Deb822Stanza s;
    s.fields = {{"Package", p->package, 0}, {"Architecture", p->architecture, 0}, {"Auto-Installed", "1", 0}};
    states[stanza_key(s)] = std::move(s);
  }
  std::vector<Deb822Stanza> state_list;
  for (auto& [k, s] : states) state_list.push_back(std::move(s));
  out.push_back(effect_file("var/lib/apt/extended_states", format_deb822(state_list), 0644, epoch));
  return out;
}

}  // namespace strata::layer
