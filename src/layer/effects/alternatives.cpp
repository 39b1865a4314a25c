#include "layer/effects/alternatives.hpp"

#include <algorithm>

#include "layer/effects/script_expand.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

bool is_separator(const std::string& w) { return w == ";" || w == "&" || w == "|"; }


}  // namespace

std::vector<AlternativeInstall> parse_alternative_installs(std::string_view script,
                                                           std::vector<std::string>& unreadable) {
  ScriptExpander script_words(script);
  std::vector<AlternativeInstall> out;
  for (const auto& w : script_words.unrolled_commands()) {
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (oci::base_name(w[i]) != "update-alternatives") continue;
      std::size_t end = i + 1;
      while (end < w.size() && !is_separator(w[end])) ++end;
      std::vector<std::string> args(w.begin() + static_cast<long>(i) + 1, w.begin() + static_cast<long>(end));
      i = end;
      if (std::find(args.begin(), args.end(), "--install") == args.end()) continue;
      bool literal = std::none_of(args.begin(), args.end(), [](const std::string& a) {
        return a.find('$') != std::string::npos || a.find('`') != std::string::npos;
      });
      if (!literal) {
        unreadable.push_back("update-alternatives " + str::join(args, " "));
        continue;
      }
      AlternativeInstall inst;
      bool ok = false;
      for (std::size_t k = 0; k < args.size(); ++k) {
        if (args[k] == "--install") {
          if (k + 4 >= args.size()) break;
          auto prio = str::parse_u64(args[k + 4]);
          if (!prio) break;
          inst.link = args[k + 1];
          inst.name = args[k + 2];
          inst.path = args[k + 3];
          inst.priority = static_cast<int>(*prio);
          ok = true;
          k += 4;
        } else if (args[k] == "--slave" && k + 3 < args.size()) {
          inst.slaves.push_back({args[k + 1], args[k + 2], args[k + 3]});
          k += 3;
        } else if (args[k] == "--altdir" || args[k] == "--admindir" || args[k] == "--instdir" ||
                   args[k] == "--root" || args[k] == "--log") {
          ++k;
        }
      }
      if (ok && inst.link.starts_with('/') && inst.path.starts_with('/')) {
        out.push_back(std::move(inst));
      } else {
        unreadable.push_back("update-alternatives " + str::join(args, " "));
      }
    }
  }
  return out;
}

Result<AlternativeGroup> parse_alternative_admin(std::string_view name, std::string_view text) {
  auto bad = [&](std::string why) {
    return fail(ErrorCode::kInvalidArgument, "/var/lib/dpkg/alternatives/" + std::string(name) + ": " + why);
  };
  auto lines = str::split(text, '\n');
  std::size_t i = 0;
  auto next = [&]() -> std::optional<std::string> {
    if (i >= lines.size()) return std::nullopt;
    return std::string(lines[i++]);
  };
  AlternativeGroup g;
  g.name = std::string(name);
  auto mode = next();
  if (!mode || (*mode != "auto" && *mode != "manual")) return bad("first line is not auto or manual");
  g.manual = *mode == "manual";
  auto link = next();
  if (!link || link->empty()) return bad("no master link");
  g.link = *link;
  std::vector<std::string> slave_order;
  while (true) {
    auto sname = next();
    if (!sname) return bad("truncated slave list");
    if (sname->empty()) break;
    auto slink = next();
    if (!slink) return bad("slave " + *sname + " has no link");
    g.slave_links[*sname] = *slink;
    slave_order.push_back(*sname);
  }
  while (true) {
    auto path = next();
    if (!path || path->empty()) break;
    auto prio = next();
    if (!prio || !str::parse_u64(*prio)) return bad("choice " + *path + " has no priority");
    AlternativeChoice c;
    c.priority = static_cast<int>(*str::parse_u64(*prio));
    for (const auto& s : slave_order) {
      auto target = next();
      if (!target) return bad("choice " + *path + " is truncated");
      if (!target->empty()) c.slave_paths[s] = *target;
    }
    g.choices[*path] = std::move(c);
  }
  return g;
}

std::string format_alternative_admin(const AlternativeGroup& g) {
  std::string out = std::string(g.manual ? "manual" : "auto") + "\n" + g.link + "\n";
  for (const auto& [name, link] : g.slave_links) out += name + "\n" + link + "\n";
  out += "\n";
  for (const auto& [path, c] : g.choices) {
    out += path + "\n" + std::to_string(c.priority) + "\n";
    for (const auto& [name, link] : g.slave_links) {
      auto it = c.slave_paths.find(name);
      out += (it == c.slave_paths.end() ? std::string() : it->second) + "\n";
    }
  }
  out += "\n";
  return out;
}

Result<Effects> alternatives_effects(const OverlayView& view, std::int64_t epoch) {
  Effects fx;
  std::map<std::string, AlternativeGroup> groups;
  std::set<std::string> touched;
  const auto& rules = view.rules();
  for (const FragmentInfo* p : view.packages()) {
    auto script = p->control_files.find("postinst");
    if (script == p->control_files.end()) continue;
    std::vector<std::string> unreadable;
    auto installs = parse_alternative_installs(script->second, unreadable);
    for (const auto& u : unreadable) fx.unreproduced.push_back(p->package + ": postinst runs `" + u + "`; not reproduced");
    for (const auto& inst : installs) {
      if (!groups.contains(inst.name)) {
        AlternativeGroup g;
        std::string admin = "var/lib/dpkg/alternatives/" + inst.name;
        if (view.base().exists(admin)) {
          STRATA_TRY(std::string text, view.base().read_small_file(admin));
          STRATA_TRY(g, parse_alternative_admin(inst.name, text));
        } else {
          g.name = inst.name;
          g.link = inst.link;
        }
        groups[inst.name] = std::move(g);
      }
      AlternativeGroup& g = groups[inst.name];
      touched.insert(inst.name);
      if (!view.exists(rules.place(std::string(str::strip(inst.path, '/')), p->package))) {
        fx.notes.push_back(p->package + ": alternative " + inst.name + " → " + inst.path +
                           " skipped: the target is not in the image");
        continue;
      }
      g.link = inst.link;  // --install renames the master link if it changed
      AlternativeChoice c;
      c.priority = inst.priority;
      for (const auto& s : inst.slaves) {
        g.slave_links[s.name] = s.link;
        c.slave_paths[s.name] = s.path;
      }
      g.choices[inst.path] = std::move(c);
    }
  }
  for (const auto& name : touched) {
    AlternativeGroup& g = groups[name];
    if (g.choices.empty()) continue;
    std::string best;
    if (g.manual) {
      auto cur = view.base().lookup("etc/alternatives/" + name, oci::ImageFilesystem::Follow::kNo);
      if (cur && (*cur)->type == oci::TarEntryType::kSymlink && g.choices.contains((*cur)->link_target)) {
        best = (*cur)->link_target;
      }
    }
    if (best.empty()) {
      int top = -1;
      for (const auto& [path, c] : g.choices) {
        if (c.priority > top) {
          top = c.priority;
          best = path;
        }
      }
      g.manual = false;
    }
    fx.files.push_back(effect_file("var/lib/dpkg/alternatives/" + name, format_alternative_admin(g), 0644, epoch));
    auto link = [&](const std::string& link_path, const std::string& alt_name, const std::string& target) {
      std::string placed = rules.place(std::string(str::strip(link_path, '/')), "");
      const FragmentEntry* in_layer = view.layer_entry(placed);
      auto in_base = view.base().lookup(placed, oci::ImageFilesystem::Follow::kNo);
      bool real_file = (in_layer && in_layer->type != oci::TarEntryType::kSymlink) ||
                       (!in_layer && in_base && (*in_base)->type != oci::TarEntryType::kSymlink);
      fx.files.push_back(effect_symlink(rules.place("etc/alternatives/" + alt_name, ""), target, epoch));
      if (real_file) {
        fx.notes.push_back("alternative " + alt_name + ": " + link_path +
                           " is a real file in the image; left alone (as update-alternatives does)");
        return;
      }
      fx.files.push_back(effect_symlink(placed, "/etc/alternatives/" + alt_name, epoch));
    };
    link(g.link, name, best);
    const AlternativeChoice& c = g.choices.at(best);
    for (const auto& [sname, slink] : g.slave_links) {
      auto target = c.slave_paths.find(sname);
      if (target == c.slave_paths.end() || !view.exists(rules.place(std::string(str::strip(target->second, '/')), ""))) continue;
      link(slink, sname, target->second);
    }
  }
  return fx;
}

}  // namespace strata::layer
