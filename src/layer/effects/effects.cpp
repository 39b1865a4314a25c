#include "layer/effects/effects.hpp"

#include <algorithm>
#include <array>

#include "util/strings.hpp"

namespace strata::layer {

OverlayView::OverlayView(const oci::ImageFilesystem& base, const RewriteRules& rules,
                         const std::vector<const FragmentInfo*>& packages)
    : base_(base), rules_(rules), packages_(packages) {
  for (const FragmentInfo* p : packages_) {
    for (const auto& e : p->entries) entries_[e.path] = &e;
  }
}

bool OverlayView::exists(const std::string& placed) const {
  if (entries_.contains(placed)) return true;
  return base_.exists(placed);
}

const FragmentEntry* OverlayView::layer_entry(const std::string& placed) const {
  auto it = entries_.find(placed);
  return it == entries_.end() ? nullptr : it->second;
}

EffectFile effect_file(std::string path, std::string content, std::uint32_t mode, std::int64_t epoch) {
  EffectFile f;
  f.entry.path = std::move(path);
  f.entry.type = oci::TarEntryType::kRegular;
  f.entry.mode = mode;
  f.entry.size = content.size();
  f.entry.mtime = epoch;
  f.content = std::move(content);
  return f;
}

EffectFile effect_symlink(std::string path, std::string target, std::int64_t epoch) {
  EffectFile f;
  f.entry.path = std::move(path);
  f.entry.type = oci::TarEntryType::kSymlink;
  f.entry.mode = 0777;
  f.entry.mtime = epoch;
  f.entry.link_target = std::move(target);
  return f;
}

std::vector<std::string> unreproduced_script_effects(const FragmentInfo& p, const std::set<std::string>& reproduced) {
  struct Known {
    const char* token;
    const char* what;
  };
  static constexpr std::array<Known, 17> kKnown{{
      {"adduser", "creates users or groups (adduser)"},
      {"addgroup", "creates groups (addgroup)"},
      {"useradd", "creates users (useradd)"},
      {"groupadd", "creates groups (groupadd)"},
      {"systemd-sysusers", "creates users (systemd-sysusers)"},
      {"dpkg-divert", "adds diversions (dpkg-divert)"},
      {"dpkg-statoverride", "sets owners and modes (dpkg-statoverride)"},
      {"confmodule", "asks debconf questions"},
      {"update-ca-certificates", "rebuilds the CA bundle (update-ca-certificates)"},
      {"deb-systemd-helper", "enables systemd units"},
      {"update-rc.d", "enables init scripts"},
      {"py3compile", "byte-compiles Python modules (py3compile)"},
      {"update-mime", "updates MIME caches"},
      {"install-info", "updates the info directory"},
      {"locale-gen", "generates locales"},
      {"chown", "changes owners (chown)"},
      {"php_invoke", "enables PHP modules (phpenmod)"},
  }};
  std::vector<std::string> out;
  for (const char* script : {"preinst", "postinst"}) {
    auto it = p.control_files.find(script);
    if (it == p.control_files.end()) continue;
    for (const auto& k : kKnown) {
      if (reproduced.contains(k.token)) continue;
      if (it->second.find(k.token) != std::string::npos) {
        out.push_back(p.package + ": " + script + " " + k.what + "; not reproduced");
      }
    }
  }
  if (auto it = p.control_files.find("triggers"); it != p.control_files.end()) {
    for (auto line : str::split(it->second, '\n')) {
      auto words = str::split_ws(line);
      if (words.size() < 2 || words[0].starts_with('#')) continue;
      if (words[1] == "ldconfig" || words[1] == "libc-upgrade") continue;  // ld.so.cache is regenerated
      if (reproduced.contains(std::string(words[1]))) continue;
      out.push_back(p.package + ": trigger " + std::string(words[0]) + " " + std::string(words[1]) +
                    " not run");
    }
  }
  return out;
}

Effects tzdata_effects(const OverlayView& view, std::int64_t epoch) {
  Effects fx;
  bool fresh = std::any_of(view.packages().begin(), view.packages().end(),
                           [](const FragmentInfo* p) { return p->package == "tzdata"; });
  if (!fresh) return fx;
  const auto& base = view.base();
  std::string zone;
  std::string linked;  // the zone /etc/localtime names now
  auto link = base.lookup("etc/localtime", oci::ImageFilesystem::Follow::kNo);
  if (link && (*link)->type == oci::TarEntryType::kSymlink) {
    std::string t = (*link)->link_target;
    if (!t.starts_with('/')) t = "/etc/" + t;
    // realpath -m -s: lexical, "." and ".." folded
    std::vector<std::string> parts;
    for (auto c : str::split(t, '/')) {
      if (c.empty() || c == ".") continue;
      if (c == "..") {
        if (!parts.empty()) parts.pop_back();
        continue;
      }
      parts.emplace_back(c);
    }
    t = "/" + str::join(parts, "/");
    zone = linked = t.starts_with("/usr/share/zoneinfo/") ? t.substr(20) : t;
  } else if (base.exists("etc/timezone")) {
    auto text = base.read_small_file("etc/timezone");
    if (!text) {
      fx.unreproduced.push_back("tzdata: the base's /etc/timezone cannot be read; its postinst not reproduced");
      return fx;
    }
    std::string first(str::split(*text, '\n').front());
    zone = first.substr(0, first.find(' '));
    while (zone.starts_with('/')) zone.erase(0, 1);
    while (zone.ends_with('/')) zone.pop_back();
  }
  bool known = !zone.empty() && zone.find("..") == std::string::npos &&
               view.exists(view.rules().place("usr/share/zoneinfo/" + zone, "tzdata"));
  if (!known) {
    if (!zone.empty()) fx.notes.push_back("tzdata: the base's time zone " + zone + " is not in the image; Etc/UTC");
    zone = "Etc/UTC";
  }
  if (linked != zone) fx.files.push_back(effect_symlink("etc/localtime", "/usr/share/zoneinfo/" + zone, epoch));
  fx.files.push_back(effect_file("etc/timezone", zone + "\n", 0644, epoch));
  return fx;
}

std::optional<EffectFile> dpkg_arch_effect(const oci::ImageFilesystem& base,
                                           const std::vector<const FragmentInfo*>& packages,
                                           const std::string& native_arch, std::int64_t epoch) {
  std::set<std::string> known;
  std::string text = base.read_small_file("var/lib/dpkg/arch").value_or("");
  for (auto line : str::split(text, '\n')) {
    auto a = str::trim(line);
    if (!a.empty()) known.emplace(a);
  }
  std::set<std::string> foreign;
  bool added = false;
  for (const auto& a : known) {
    if (a != native_arch) foreign.insert(a);
  }
  for (const FragmentInfo* p : packages) {
    if (p->architecture == "all" || p->architecture == native_arch || known.contains(p->architecture)) continue;
    added |= foreign.insert(p->architecture).second;
  }
  if (!added) return std::nullopt;
  std::string out = native_arch + "\n";
  for (const auto& a : foreign) out += a + "\n";
  return effect_file("var/lib/dpkg/arch", std::move(out), 0644, epoch);
}

}  // namespace strata::layer
