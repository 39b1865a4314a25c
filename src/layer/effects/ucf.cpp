#include "layer/effects/ucf.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "layer/deb/fragment.hpp"
#include "layer/effects/script_expand.hpp"
#include "util/strings.hpp"

namespace strata::layer {
namespace {

bool literal(const std::string& w) { return w.find('$') == std::string::npos && w.find('`') == std::string::npos; }

// An absolute path with no "." or ".." component: where a file may go.
bool plain_path(const std::string& p) {
  if (!p.starts_with('/') || p.size() < 2) return false;
  for (auto part : str::split(std::string_view(p).substr(1), '/'))
    if (part.empty() || part == "." || part == "..") return false;
  return true;
}

// The words of a ucf or ucfr call after its options: ucf's --debconf-ok,
// --three-way, --purge… take no value, --state-dir and --debconf-template do.
std::vector<std::string> positional(const std::vector<std::string>& w, std::size_t from) {
  std::vector<std::string> out;
  for (std::size_t i = from; i < w.size(); ++i) {
    const std::string& a = w[i];
    if (a == ";" || a == "&" || a == "|" || a == "||" || a == "&&") break;
    if (a == "--state-dir" || a == "--debconf-template") {
      ++i;
      continue;
    }
    if (a.starts_with('-')) continue;
    out.push_back(a);
  }
  return out;
}

// A word after which the next one is a command: `if ucf …`, `… && ucfr …`.
bool command_position(const std::string& prev) {
  return prev == "if" || prev == "then" || prev == "else" || prev == "do" || prev == "!" || prev == "&&" ||
         prev == "||" || prev == ";" || prev == "|" || prev == "&";
}

// "; priority=20" in a PHP module's ini (php-helper's get_priority), else 20.
std::string php_priority(std::string_view ini) {
  for (auto raw : str::split(ini, '\n')) {
    std::string_view l = str::trim(raw);
    if (!l.starts_with(';')) continue;
    l = str::trim(l.substr(1));
    if (!l.starts_with("priority")) continue;
    l = str::trim(l.substr(8));
    if (!l.starts_with('=')) continue;
    l = str::trim(l.substr(1));
    if (!l.empty() && std::all_of(l.begin(), l.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return std::string(l);
  }
  return "20";
}

class UcfEffects {
 public:
  UcfEffects(const OverlayView& view, std::int64_t epoch) : view_(view), epoch_(epoch) {}

  Result<Effects> run(std::vector<std::string>& handled) {
    for (const FragmentInfo* p : view_.packages()) {
      auto script = p->control_files.find("postinst");
      if (script == p->control_files.end() || script->second.find("ucf") == std::string::npos) continue;
      ScriptExpander x(script->second);
      bool any = false;
      for (const auto& w : x.unrolled_commands())
        for (std::size_t i = 0; i < w.size(); ++i) {
          if (i > 0 && !command_position(w[i - 1])) continue;  // `if [ -z ucf ]`: a word, not the command
          std::string prog(oci::base_name(w[i]));
          if (prog == "ucf") any |= ucf(*p, positional(w, i + 1), w);
          if (prog == "ucfr") any |= ucfr(positional(w, i + 1));
        }
      if (any) handled.push_back(p->package);
    }
    php_modules();
    STRATA_TRY_VOID(state_file("var/lib/ucf/hashfile", hashes_));
    STRATA_TRY_VOID(state_file("var/lib/ucf/registry", registry_));
    return std::move(fx_);
  }

 private:
  bool ucf(const FragmentInfo& p, const std::vector<std::string>& args, const std::vector<std::string>& w) {
    if (args.size() < 2 || !literal(args[0]) || !literal(args[1]) || !plain_path(args[0]) || !plain_path(args[1])) {
      fx_.unreproduced.push_back(p.package + ": postinst runs `" + str::join(w, " ") + "`; not reproduced");
      return false;
    }
    const std::string src = view_.rules().place(std::string(str::strip(args[0], '/')), p.package);
    const std::string dest = std::string(str::strip(args[1], '/'));
    // The source is the package's own, or another new package's (php8.2-cli's
    // postinst installs php8.2-common's php.ini-production.cli).
    const std::string* content = nullptr;
    for (const FragmentInfo* q : view_.packages()) {
      auto it = q->captured.find(q == &p ? src : view_.rules().place(std::string(str::strip(args[0], '/')), q->package));
      if (it != q->captured.end()) {
        content = &it->second;
        if (q == &p) break;
      }
    }
    if (!content) {
      fx_.unreproduced.push_back(p.package + ": postinst runs `ucf " + args[0] + " " + args[1] +
                                 "`, whose source the package does not ship; not reproduced");
      return false;
    }
    if (installed_.contains(dest) || view_.exists(view_.rules().place(dest, p.package))) return true;  // ucf keeps it
    installed_[dest] = *content;
    fx_.files.push_back(effect_file(dest, *content, 0644, epoch_));
    hashes_.push_back(md5_hex(*content) + "  /" + dest);
    return true;
  }

  bool ucfr(const std::vector<std::string>& args) {
    if (args.size() < 2 || !literal(args[0]) || !literal(args[1]) || !plain_path(args[1]) ||
        args[0].find_first_of(" \t\n") != std::string::npos)
      return false;
    registry_.push_back(args[0] + " \t " + args[1]);
    return true;
  }

  // A file of the image after the layer: the layer's entries, what ucf
  // installed, or the base's.
  bool exists(const std::string& path) const { return installed_.contains(path) || view_.exists(path); }

  // The names in `dir` (placed, no trailing slash) in the base, the layer
  // or what ucf installed.
  std::set<std::string> names_in(const std::string& dir) const {
    std::set<std::string> out;
    if (auto names = view_.base().list(dir)) out.insert(names->begin(), names->end());
    const std::string prefix = dir + "/";
    auto take = [&](const std::string& path) {
      if (path.starts_with(prefix) && path.find('/', prefix.size()) == std::string::npos && path.size() > prefix.size())
        out.insert(path.substr(prefix.size()));
    };
    for (const FragmentInfo* p : view_.packages())
      for (const auto& e : p->entries) take(e.path);
    for (const auto& [path, _] : installed_) take(path);
    return out;
  }

  void php_modules() {
    std::set<std::string> versions;  // a PHP whose SAPI or module a new package brings
    for (const FragmentInfo* p : view_.packages())
      for (const auto& e : p->entries) {
        auto parts = str::split(e.path, '/');
        if (parts.size() >= 5 && parts[0] == "usr" && parts[1] == "lib" && parts[2] == "php" && parts[4] == "sapi")
          versions.emplace(parts[3]);
      }
    for (const auto& [path, _] : installed_) {
      auto parts = str::split(path, '/');
      if (parts.size() == 5 && parts[0] == "etc" && parts[1] == "php" && parts[3] == "mods-available")
        versions.emplace(parts[2]);
    }
    for (const auto& version : versions) {
      if (version.empty() || version == "." || version.find("..") != std::string::npos) continue;
      const std::string mods = "etc/php/" + version + "/mods-available";
      for (const auto& sapi : names_in("usr/lib/php/" + version + "/sapi")) {
        if (sapi == "." || sapi == ".." || sapi.find('/') != std::string::npos) continue;
        const std::string confd = "etc/php/" + version + "/" + sapi + "/conf.d";
        if (!exists(confd)) continue;  // phpenmod: "doesn't exist, not enabling the module"
        const std::string state = "var/lib/php/modules/" + version + "/" + sapi;
        for (const auto& ini : names_in(mods)) {
          if (!ini.ends_with(".ini") || ini.size() < 5 || ini.find('/') != std::string::npos) continue;
          const std::string mod = ini.substr(0, ini.size() - 4);
          if (exists(state + "/disabled_by_admin/" + mod) || exists(state + "/disabled_by_maint/" + mod)) continue;
          std::string text;
          if (auto it = installed_.find(mods + "/" + ini); it != installed_.end()) text = it->second;
          else if (auto base = view_.base().read_small_file(mods + "/" + ini)) text = *base;
          const std::string link = confd + "/" + php_priority(text) + "-" + ini;
          if (exists(link)) continue;
          fx_.files.push_back(effect_symlink(link, "/" + mods + "/" + ini, epoch_));
          if (!exists(state + "/enabled_by_admin/" + mod))
            fx_.files.push_back(effect_file(state + "/enabled_by_maint/" + mod, "", 0644, epoch_));
          const std::string registry = "var/lib/php/modules/" + version + "/registry/" + mod;
          if (!exists(registry) && registered_.insert(registry).second)
            fx_.files.push_back(effect_file(registry, "", 0644, epoch_));
        }
      }
    }
  }

  // ucf's state: the base's lines, then this layer's.
  Result<void> state_file(const std::string& path, const std::vector<std::string>& lines) {
    if (lines.empty()) return {};
    std::string text;
    if (view_.base().exists(path)) {
      STRATA_TRY(text, view_.base().read_small_file(path));
      if (!text.empty() && !text.ends_with('\n')) text += '\n';
    }
    for (const auto& l : lines) text += l + "\n";
    fx_.files.push_back(effect_file(path, std::move(text), 0644, epoch_));
    return {};
  }

  const OverlayView& view_;
  std::int64_t epoch_;
  Effects fx_;
  std::map<std::string, std::string> installed_;  // placed path → content
  std::vector<std::string> hashes_, registry_;
  std::set<std::string> registered_;
};

}  // namespace

Result<Effects> ucf_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled) {
  return UcfEffects(view, epoch).run(handled);
}

}  // namespace strata::layer
