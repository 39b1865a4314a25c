#include "layer/effects/services.hpp"

#include <algorithm>
#include <functional>
#include <set>

#include "layer/effects/script_expand.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

bool service_separator(const std::string& w) { return w == ";" || w == "&" || w == "|" || w == "&&" || w == "||"; }

// A unit or init script name safe to make paths of.
bool plain_name(std::string_view n) {
  if (n.empty() || n.size() > 255 || n == "." || n == "..") return false;
  return n.find_first_of("/\n\\ $`") == std::string_view::npos;
}

struct Call {
  std::string tool;  // update-rc.d or deb-systemd-helper
  std::vector<std::string> args;
  std::string written;
};

std::vector<Call> calls_of(std::string_view script) {
  ScriptExpander ex(script);
  std::vector<Call> out;
  for (const auto& line : ex.lines()) {
    auto w = ex.command_words(line);
    for (std::size_t i = 0; i < w.size(); ++i) {
      std::string tool(oci::base_name(w[i]));
      if (tool != "update-rc.d" && tool != "deb-systemd-helper") continue;
      Call c;
      c.tool = tool;
      std::size_t end = i + 1;
      while (end < w.size() && !service_separator(w[end])) {
        if (!w[end].starts_with('>') && !w[end].starts_with("2>")) c.args.push_back(w[end]);
        ++end;
      }
      i = end;
      c.written = tool + " " + str::join(c.args, " ");
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace

std::pair<std::vector<std::string>, std::vector<std::string>> lsb_default_levels(std::string_view script) {
  std::pair<std::vector<std::string>, std::vector<std::string>> out;
  bool in_header = false;
  for (auto line : str::split(script, '\n')) {
    if (line.starts_with("### BEGIN INIT INFO")) in_header = true;
    if (line.starts_with("### END INIT INFO")) break;
    if (!in_header || !line.starts_with('#')) continue;
    std::string_view body = str::trim(line.substr(1));
    for (auto [key, dest] : {std::pair{std::string_view("Default-Start:"), &out.first},
                             std::pair{std::string_view("Default-Stop:"), &out.second}}) {
      if (!body.starts_with(key)) continue;
      for (auto w : str::split_ws(body.substr(key.size()))) {
        if (w.size() == 1 && (std::isdigit(static_cast<unsigned char>(w[0])) || w[0] == 'S' || w[0] == 's')) {
          dest->emplace_back(w == "s" ? "S" : std::string(w));
        }
      }
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> unit_install_section(std::string_view unit) {
  std::vector<std::pair<std::string, std::string>> out;
  bool install = false;
  for (auto line : str::split(unit, '\n')) {
    line = str::trim(line);
    if (line.empty() || line.starts_with('#') || line.starts_with(';')) continue;
    if (line.starts_with('[')) {
      install = line == "[Install]";
      continue;
    }
    if (!install) continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key(str::trim(line.substr(0, eq)));
    for (auto v : str::split_ws(line.substr(eq + 1))) out.emplace_back(key, std::string(v));
  }
  return out;
}

Result<Effects> service_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled) {
  Effects fx;
  const auto& rules = view.rules();
  const auto& base = view.base();
  // A file the layer ships, by its path as packages list it ("/lib/systemd/system/x"):
  // the captured content.
  auto layer_content = [&](const std::string& listed) -> const std::string* {
    std::string placed = rules.place(std::string(str::strip(listed, '/')), "");
    for (const FragmentInfo* p : view.packages()) {
      if (auto c = p->captured.find(placed); c != p->captured.end()) return &c->second;
    }
    return nullptr;
  };
  std::set<std::string> made;  // placed paths of links already made
  std::vector<EffectFile> files;
  bool insserv = base.exists("usr/sbin/insserv") || base.exists("sbin/insserv");
  for (const FragmentInfo* p : view.packages()) {
    auto s = p->control_files.find("postinst");
    if (s == p->control_files.end()) continue;
    bool all = true;
    std::vector<Call> calls = calls_of(s->second);
    if (calls.empty()) continue;
    auto skip = [&](const Call& c, const std::string& why) {
      fx.unreproduced.push_back(p->package + ": postinst runs `" + c.written + "`" + (why.empty() ? "" : " (" + why + ")") +
                                "; not reproduced");
      all = false;
    };
    for (const Call& c : calls) {
      bool literal = std::none_of(c.args.begin(), c.args.end(), [](const std::string& a) {
        return a.find('$') != std::string::npos || a.find('`') != std::string::npos;
      });
      if (!literal) {
        skip(c, "");
        continue;
      }
      if (c.tool == "update-rc.d") {
        if (c.args.size() != 2 || c.args[1] != "defaults" || !plain_name(c.args[0])) {
          if (!(c.args.size() == 2 && c.args[1] == "remove")) skip(c, "");
          continue;
        }
        const std::string& name = c.args[0];
        const std::string* script = layer_content("/etc/init.d/" + name);
        if (!script) {
          if (base.exists("etc/init.d/" + name)) skip(c, "the init script is the base's");
          continue;  // guarded by [ -x /etc/init.d/NAME ]: nothing to do
        }
        if (insserv) {
          skip(c, "insserv orders the links");
          continue;
        }
        bool linked = false;
        for (const char* lvl : {"0", "1", "2", "3", "4", "5", "6", "S"}) {
          if (auto names = base.list(std::string("etc/rc") + lvl + ".d")) {
            for (const auto& n : *names) {
              if (n.size() == 3 + name.size() && n.ends_with(name) && (n[0] == 'S' || n[0] == 'K')) linked = true;
            }
          }
        }
        if (linked) continue;  // defaults keeps links that are there
        auto [start, stop] = lsb_default_levels(*script);
        for (const auto& l : start) files.push_back(effect_symlink("etc/rc" + l + ".d/S01" + name, "../init.d/" + name, epoch));
        for (const auto& l : stop) files.push_back(effect_symlink("etc/rc" + l + ".d/K01" + name, "../init.d/" + name, epoch));
        continue;
      }
      // deb-systemd-helper [--quiet] ACTION UNIT…
      std::vector<std::string> args;
      for (const auto& a : c.args) {
        if (a != "--quiet" && a != "--user") args.push_back(a);
      }
      if (args.empty()) continue;
      const std::string& action = args[0];
      if (action == "unmask" || action == "was-enabled" || action == "update-state" || action == "debian-installed" ||
          action == "is-enabled") {
        continue;  // nothing on a first install (update-state is the other branch of was-enabled)
      }
      if (action != "enable" || args.size() < 2) {
        skip(c, "");
        continue;
      }
      for (std::size_t u = 1; u < args.size(); ++u) {
        const std::string& unit = args[u];
        if (!plain_name(unit) || unit.find('@') != std::string::npos) {
          skip(c, "unit " + str::quote(unit));
          continue;
        }
        std::vector<std::string> links;  // absolute link paths, for the dsh-also file
        std::set<std::string> seen;
        bool ok = true;
        std::function<void(const std::string&, int)> enable = [&](const std::string& name, int depth) {
          if (depth > 8 || !seen.insert(name).second) return;
          std::string found;
          const std::string* text = nullptr;
          for (const char* dir : {"/etc/systemd/system/", "/lib/systemd/system/", "/usr/lib/systemd/system/"}) {
            if ((text = layer_content(dir + name))) {
              found = dir + name;
              break;
            }
          }
          if (!text) {
            ok = false;
            return;
          }
          for (const auto& [key, value] : unit_install_section(*text)) {
            if (!plain_name(value)) continue;
            std::string link;
            if (key == "WantedBy") link = "/etc/systemd/system/" + value + ".wants/" + name;
            if (key == "RequiredBy") link = "/etc/systemd/system/" + value + ".requires/" + name;
            if (key == "Alias") link = "/etc/systemd/system/" + value;
            if (key == "Also") enable(value, depth + 1);
            if (link.empty()) continue;
            if (std::find(links.begin(), links.end(), link) == links.end()) links.push_back(link);
            std::string placed = link.substr(1);
            if (made.insert(placed).second) {
              files.push_back(effect_symlink(placed, found, epoch));
              files.push_back(effect_file("var/lib/systemd/deb-systemd-helper-enabled/" + link.substr(20), "", 0644, epoch));
            }
          }
        };
        enable(unit, 0);
        if (!ok) {
          skip(c, "unit " + unit + " or one it names is not in the layer");
          continue;
        }
        if (links.empty()) continue;
        std::string also;
        for (const auto& l : links) also += l + "\n";
        files.push_back(effect_file("var/lib/systemd/deb-systemd-helper-enabled/" + unit + ".dsh-also", also, 0644, epoch));
      }
    }
    (void)all;
    handled.push_back(p->package);  // what it could not do is listed call by call above
  }
  fx.files = std::move(files);
  return fx;
}

}  // namespace strata::layer
