#include "layer/effects/dpkg_database.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

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

bool is_installed_stanza(const Deb822Stanza& s) {
  auto words = str::split_ws(s.get("Status").value_or(""));
  return words.size() == 3 && words[2] != "not-installed" && words[2] != "config-files";
}

// The bucket of apt's package hash table a name falls in (apt 2.x: djb2 of
// the lower-cased name, 32-bit, over 196613 buckets): pkgDepCache writes the
// extended_states stanzas it adds in this order.
std::uint32_t apt_hash_bucket(std::string_view name) {
  std::uint32_t h = 5381;
  for (char c : name) h = 33 * h + static_cast<unsigned char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  return h % 196613;
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
      if (!f.raw.empty()) {  // as dpkg writes a value it read: "Name: " and the bytes
        out += f.name + (f.raw.front() == '\n' ? ":" : ": ") + f.raw + "\n";
        continue;
      }
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

Result<Deb822Stanza> status_stanza(const FragmentInfo& p, std::string_view status,
                                   const std::map<std::string, std::string>& conffile_md5) {
  Deb822Options keep;
  keep.keep_raw = true;
  STRATA_TRY(auto stanzas, parse_deb822(p.control, p.package + " control", keep));
  if (stanzas.size() != 1) return fail(ErrorCode::kInvalidArgument, p.package + ": control must be one stanza");
  Deb822Stanza s = std::move(stanzas.front());
  std::erase_if(s.fields, [](const Deb822Field& f) {
    return str::lower(f.name) == "status" || str::lower(f.name) == "conffiles";
  });
  s.fields.push_back({"Status", std::string(status), 0, std::string(status)});
  if (auto cf = p.control_files.find("conffiles"); cf != p.control_files.end()) {
    std::string value;
    for (auto line : str::split(cf->second, '\n')) {
      auto path = str::trim(line);
      if (path.empty()) continue;
      if (path.starts_with("remove-on-upgrade ")) continue;  // a flag for removed conffiles, not a file
      auto it = conffile_md5.find(std::string(path));
      value += "\n " + std::string(path) + " " + (it == conffile_md5.end() ? std::string("newconffile") : it->second);
    }
    if (!value.empty()) s.fields.push_back({"Conffiles", value, 0, value});
  }
  std::stable_sort(s.fields.begin(), s.fields.end(), [](const Deb822Field& a, const Deb822Field& b) {
    return field_rank(a.name) < field_rank(b.name);
  });
  return s;
}

Result<Deb822Stanza> status_stanza(const FragmentInfo& p) {
  return status_stanza(p, "install ok installed", p.conffile_md5);
}

namespace {

// What the unpack run leaves (dpkg's state between `dpkg --unpack` and
// `dpkg --configure`): the package unpacked, its conffiles not yet hashed
// ("newconffile"), or for an upgrade the old version's hashes and
// Config-Version.
Result<Deb822Stanza> unpacked_stanza(const FragmentInfo& p, const Deb822Stanza* before) {
  std::map<std::string, std::string> md5;
  std::string config_version;
  if (before != nullptr && is_installed_stanza(*before)) {
    config_version = std::string(before->get("Version").value_or(""));
    for (auto line : str::split(before->get("Conffiles").value_or(""), '\n')) {
      auto words = str::split_ws(line);
      if (words.size() >= 2) md5[std::string(words[0])] = std::string(words[1]);
    }
  }
  STRATA_TRY(auto s, status_stanza(p, "install ok unpacked", md5));
  if (!config_version.empty()) {
    auto at = std::find_if(s.fields.begin(), s.fields.end(),
                           [](const Deb822Field& f) { return field_rank(f.name) > field_rank("Version"); });
    s.fields.insert(at, {"Config-Version", config_version, 0, config_version});
  }
  return s;
}

// Triggers the new packages activate, by name: explicit ones from their
// triggers files, file triggers from the paths they ship under an interested
// directory (the base's triggers/File).
std::vector<std::string> activated_triggers(const std::vector<const FragmentInfo*>& packages,
                                            const std::vector<std::pair<std::string, std::string>>& file_interests) {
  std::vector<std::string> out;
  auto add = [&](std::string name) {
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(std::move(name));
  };
  for (const FragmentInfo* p : packages) {
    if (auto t = p->control_files.find("triggers"); t != p->control_files.end()) {
      for (auto line : str::split(t->second, '\n')) {
        auto words = str::split_ws(line);
        if (words.size() >= 2 && (words[0] == "activate" || words[0] == "activate-noawait" ||
                                  words[0] == "activate-await")) {
          add(std::string(words[1]));
        }
      }
    }
    for (const auto& path : p->list) {
      for (const auto& [dir, pkg] : file_interests) {
        if (path == dir || (path.size() > dir.size() && path.starts_with(dir) && path[dir.size()] == '/')) add(dir);
      }
    }
  }
  return out;
}

}  // namespace

namespace {

// Sets a field's value (raw too), in place, or inserted where dpkg's field
// order puts it.
void set_field(Deb822Stanza& s, std::string_view name, std::string value) {
  for (auto& f : s.fields) {
    if (str::lower(f.name) == str::lower(name)) {
      f.value = value;
      f.raw = std::move(value);
      return;
    }
  }
  auto rank = field_rank(name);
  auto at = std::find_if(s.fields.begin(), s.fields.end(), [&](const Deb822Field& f) { return field_rank(f.name) > rank; });
  s.fields.insert(at, {std::string(name), value, 0, value});
}

std::vector<std::string> lines_of(const oci::ImageFilesystem& base, const std::string& path) {
  std::vector<std::string> out;
  if (!base.exists(path)) return out;
  auto text = base.read_small_file(path);
  if (!text) return out;
  for (auto line : str::split(*text, '\n')) {
    auto t = str::trim(line);
    if (!t.empty()) out.emplace_back(t);
  }
  return out;
}

// status-old: what `dpkg --configure`, the last of apt's dpkg runs, found —
// the base's stanzas, the new packages unpacked, and base packages interested
// in a trigger the new ones activate waiting for it (triggers-pending).
Result<std::vector<Deb822Stanza>> status_before_configure(const oci::ImageFilesystem& base,
                                                          const std::map<std::string, Deb822Stanza>& base_status,
                                                          const std::vector<const FragmentInfo*>& packages) {
  std::map<std::string, Deb822Stanza> old = base_status;
  for (const FragmentInfo* p : packages) {
    std::string key = p->package + "\n" + p->architecture;
    auto it = base_status.find(key);
    STRATA_TRY(auto s, unpacked_stanza(*p, it == base_status.end() ? nullptr : &it->second));
    old[key] = std::move(s);
  }
  std::vector<std::pair<std::string, std::string>> file_interests;  // directory, package
  for (const auto& line : lines_of(base, "var/lib/dpkg/triggers/File")) {
    auto words = str::split_ws(line);
    if (words.size() == 2) file_interests.emplace_back(std::string(words[0]), std::string(words[1]));
  }
  for (const auto& trigger : activated_triggers(packages, file_interests)) {
    std::vector<std::string> interested;
    if (trigger.starts_with('/')) {
      for (const auto& [dir, pkg] : file_interests)
        if (dir == trigger) interested.push_back(pkg);
    } else if (trigger.find('/') == std::string::npos && trigger != "File" && trigger != "Unincorp" &&
               trigger != "Lock") {
      interested = lines_of(base, "var/lib/dpkg/triggers/" + trigger);
    }
    for (std::string who : interested) {
      who = who.substr(0, who.find('/'));  // "pkg/noawait"
      std::string name = who.substr(0, who.find(':'));
      std::string arch = who.find(':') == std::string::npos ? "" : who.substr(who.find(':') + 1);
      for (auto& [key, s] : old) {
        if (s.get("Package").value_or("") != name || (!arch.empty() && s.get("Architecture").value_or("") != arch)) continue;
        auto words = str::split_ws(s.get("Status").value_or(""));
        if (words.size() != 3 || (words[2] != "installed" && words[2] != "triggers-pending")) continue;
        std::string pending(s.get("Triggers-Pending").value_or(""));
        bool already = false;
        for (auto w : str::split_ws(pending)) already = already || w == trigger;
        if (already) continue;
        set_field(s, "Status", std::string(words[0]) + " " + std::string(words[1]) + " triggers-pending");
        // dpkg keeps pending triggers newest first.
        set_field(s, "Triggers-Pending", pending.empty() ? trigger : trigger + " " + pending);
      }
    }
  }
  std::vector<Deb822Stanza> out;
  for (auto& [k, s] : old) out.push_back(std::move(s));
  return out;
}

// extended_states as apt's pkgDepCache::writeStateFile leaves it: the base's
// stanzas in their order (Architecture rewritten to the package's, the
// native one for Architecture: all; dropped when the package is no longer
// automatic and the stanza says nothing else), then the new automatic
// packages in apt's hash-table order.
Result<std::string> extended_states(const oci::ImageFilesystem& base, const std::map<std::string, Deb822Stanza>& status,
                                    const std::vector<const FragmentInfo*>& packages,
                                    const std::set<std::string>& requested, const std::string& native) {
  auto apt_arch = [&](std::string_view a) { return a == "all" ? native : std::string(a); };
  // Installed after the run: "name\napt-arch" → the package's architecture.
  std::map<std::string, std::string> installed;
  for (const auto& [k, s] : status) {
    if (!is_installed_stanza(s)) continue;
    std::string arch(s.get("Architecture").value_or(""));
    installed[std::string(s.get("Package").value_or("")) + "\n" + apt_arch(arch)] = arch;
  }
  auto is_requested = [&](const std::string& name, const std::string& arch) {
    return requested.contains(name) || requested.contains(name + ":" + arch) ||
           requested.contains(name + ":" + apt_arch(arch));
  };
  std::vector<Deb822Stanza> out;
  std::set<std::string> seen;
  if (base.exists("var/lib/apt/extended_states")) {
    STRATA_TRY(std::string text, base.read_small_file("var/lib/apt/extended_states"));
    Deb822Options keep;
    keep.keep_raw = true;
    STRATA_TRY(auto stanzas, parse_deb822(text, "/var/lib/apt/extended_states of the base", keep));
    for (auto& s : stanzas) {
      std::string name(s.get("Package").value_or(""));
      std::string arch = apt_arch(s.get("Architecture").value_or(native));
      auto it = installed.find(name + "\n" + arch);
      bool automatic = it != installed.end() && s.get("Auto-Installed").value_or("0") == "1" &&
                       !is_requested(name, it->second);
      if (!automatic) {
        std::size_t n = s.fields.size();
        bool has_auto = s.find("Auto-Installed") != nullptr, has_arch = s.find("Architecture") != nullptr;
        if (n < 2 || (n == 2 && has_auto) || (n == 3 && has_auto && has_arch)) continue;
      }
      if (it == installed.end()) continue;  // apt drops what its cache does not know
      set_field(s, "Architecture", arch);
      set_field(s, "Auto-Installed", automatic ? "1" : "0");
      seen.insert(name + "\n" + arch);
      out.push_back(std::move(s));
    }
  }
  std::vector<std::tuple<std::uint32_t, std::string, std::string>> added;
  for (const FragmentInfo* p : packages) {
    std::string arch = apt_arch(p->architecture);
    if (is_requested(p->package, p->architecture) || seen.contains(p->package + "\n" + arch)) continue;
    added.emplace_back(apt_hash_bucket(p->package), p->package, arch);
  }
  std::sort(added.begin(), added.end());
  for (const auto& [bucket, name, arch] : added) {
    Deb822Stanza s;
    s.fields = {{"Package", name, 0, {}}, {"Architecture", arch, 0, {}}, {"Auto-Installed", "1", 0, {}}};
    out.push_back(std::move(s));
  }
  return format_deb822(out);
}

}  // namespace

Result<std::vector<EffectFile>> dpkg_database_effects(const oci::ImageFilesystem& base,
                                                      const std::vector<const FragmentInfo*>& packages,
                                                      const std::set<std::string>& requested,
                                                      const std::string& native_arch, std::int64_t epoch) {
  std::vector<EffectFile> out;
  // status, the base's stanzas byte for byte
  std::map<std::string, Deb822Stanza> base_status;
  if (base.exists("var/lib/dpkg/status")) {
    STRATA_TRY(std::string text, base.read_small_file("var/lib/dpkg/status"));
    Deb822Options keep;
    keep.keep_raw = true;
    STRATA_TRY(auto stanzas, parse_deb822(text, "/var/lib/dpkg/status of the base", keep));
    for (auto& s : stanzas) base_status[stanza_key(s)] = std::move(s);
  }
  std::map<std::string, Deb822Stanza> status = base_status;
  for (const FragmentInfo* p : packages) {
    STRATA_TRY(auto s, status_stanza(*p));
    status[stanza_key(s)] = std::move(s);
  }
  std::vector<Deb822Stanza> sorted;
  for (const auto& [k, s] : status) sorted.push_back(s);
  out.push_back(effect_file("var/lib/dpkg/status", format_deb822(sorted), 0644, epoch));
  if (!packages.empty()) {
    STRATA_TRY(auto old, status_before_configure(base, base_status, packages));
    out.push_back(effect_file("var/lib/dpkg/status-old", format_deb822(old), 0644, epoch));
  }

  // info/: "format" 1 is the multiarch layout ("pkg:arch.list"); without it
  // dpkg reads the old one and misses the Multi-Arch: same info files.
  if (!base.exists("var/lib/dpkg/info/format")) out.push_back(effect_file("var/lib/dpkg/info/format", "1\n", 0644, epoch));
  // A file a later package takes over (Replaces; the layer lays the
  // replacing package down after the one it replaces) leaves the earlier
  // package's list, as dpkg's unpack does; directories stay shared, and so
  // do the identical files of one Multi-Arch: same package's architectures.
  std::set<std::string> directories{"/."};
  for (const FragmentInfo* p : packages) {
    for (const auto& l : p->list) directories.insert(std::string(oci::parent_path(l)));
    for (const auto& d : p->directories) directories.insert("/" + d.path);
  }
  std::map<std::string, const FragmentInfo*> last_owner;
  for (const FragmentInfo* p : packages) {
    for (const auto& l : p->list)
      if (!directories.contains(l)) last_owner[l] = p;
  }
  for (const FragmentInfo* p : packages) {
    std::string stem = "var/lib/dpkg/info/" + info_name(*p) + ".";
    std::string list;
    for (const auto& l : p->list) {
      auto owner = last_owner.find(l);
      if (owner != last_owner.end() && owner->second->package != p->package) continue;
      list += l + "\n";
    }
    out.push_back(effect_file(stem + "list", std::move(list), 0644, epoch));
    out.push_back(effect_file(stem + "md5sums", p->md5sums, 0644, epoch));
    for (const auto& [name, content] : p->control_files) {
      if (name == "md5sums" || !is_info_control_file(name)) continue;
      bool script = name == "preinst" || name == "postinst" || name == "prerm" || name == "postrm" || name == "config";
      out.push_back(effect_file(stem + name, content, script ? 0755 : 0644, epoch));
    }
  }

  // triggers/<name> and triggers/File: the new packages' interests, after
  // the base's lines, as dpkg records them when it unpacks a package
  // ("pkg", "pkg/noawait"; "path pkg" for a file trigger).
  std::map<std::string, std::vector<std::string>> interests;  // file → lines
  auto interest_lines = [&](const std::string& file) -> std::vector<std::string>& {
    auto it = interests.find(file);
    if (it != interests.end()) return it->second;
    auto& lines = interests[file];
    for (const auto& l : lines_of(base, "var/lib/dpkg/triggers/" + file)) lines.push_back(l);
    return lines;
  };
  for (const FragmentInfo* p : packages) {
    auto t = p->control_files.find("triggers");
    if (t == p->control_files.end()) continue;
    std::string who = p->multi_arch == "same" ? p->package + ":" + p->architecture : p->package;
    for (auto line : str::split(t->second, '\n')) {
      auto w = str::split_ws(line);
      if (w.size() < 2 || !w[0].starts_with("interest")) continue;
      std::string name(w[1]);
      if (name.empty() || name.find_first_of("\0 ") != std::string::npos || name == "File" || name == "Unincorp" ||
          name == "Lock" || (!name.starts_with('/') && name.find('/') != std::string::npos)) {
        continue;  // dpkg refuses such names; nothing to record
      }
      std::string mark = w[0] == "interest-noawait" ? who + "/noawait" : who;
      bool file = name.starts_with('/');
      auto& lines = interest_lines(file ? "File" : name);
      std::string entry = file ? name + " " + mark : mark;
      std::erase_if(lines, [&](const std::string& l) { return l == entry; });
      lines.push_back(entry);
    }
  }
  for (const auto& [file, lines] : interests) {
    std::string text;
    for (const auto& l : lines) text += l + "\n";
    out.push_back(effect_file("var/lib/dpkg/triggers/" + file, std::move(text), 0644, epoch));
  }

  STRATA_TRY(auto states, extended_states(base, status, packages, requested, native_arch));
  out.push_back(effect_file("var/lib/apt/extended_states", std::move(states), 0644, epoch));
  return out;
}

}  // namespace strata::layer
