#include "layer/effects/diversions.hpp"

#include <algorithm>

#include "layer/effects/script_expand.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::uint32_t kDpkgFileBins = 262139;  // lib/dpkg/fsys-hash.c

std::uint32_t fnv1a(std::string_view s) {
  std::uint32_t h = 2166136261u;
  for (unsigned char c : s) {
    h ^= c;
    h *= 16777619u;
  }
  return h;
}

std::uint32_t dpkg_bin(std::string_view path) {
  while (path.starts_with('/')) path.remove_prefix(1);
  return fnv1a(path) % kDpkgFileBins;
}

bool divert_separator(const std::string& w) { return w == ";" || w == "&" || w == "|" || w == "&&" || w == "||"; }

bool positional(const std::string& w) {
  for (std::size_t i = 0; i + 1 < w.size(); ++i) {
    if (w[i] == '$' && w[i + 1] >= '1' && w[i + 1] <= '9') return true;
  }
  return w.find("${1") != std::string::npos;
}

void scan(const std::vector<std::string>& w, const std::string& package, std::vector<DivertCall>& out,
          std::vector<std::string>& unreadable, bool in_function) {
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (oci::base_name(w[i]) != "dpkg-divert") continue;
    std::size_t end = i + 1;
    std::vector<std::string> args;
    while (end < w.size() && !divert_separator(w[end])) {
      if (!w[end].starts_with('>') && !w[end].starts_with("2>")) args.push_back(w[end]);
      ++end;
    }
    i = end;
    std::string written = "dpkg-divert " + str::join(args, " ");
    bool literal = std::none_of(args.begin(), args.end(), [](const std::string& a) {
      return a.find('$') != std::string::npos || a.find('`') != std::string::npos;
    });
    if (!literal) {
      // A function body's own line: its calls are read where they are made.
      if (!in_function && std::any_of(args.begin(), args.end(), positional)) continue;
      unreadable.push_back(written);
      continue;
    }
    DivertCall c;
    c.diversion.package = package;
    bool add = true, ok = true;
    std::vector<std::string> files;
    for (std::size_t k = 0; k < args.size(); ++k) {
      const std::string& a = args[k];
      if (a == "--add") {
      } else if (a == "--rename") {
        c.rename = true;
      } else if (a == "--no-rename" || a == "--quiet" || a == "--test") {
        if (a == "--test") ok = false;
      } else if (a == "--local") {
        c.diversion.package = ":";
      } else if ((a == "--package" || a == "--divert") && k + 1 < args.size()) {
        (a == "--package" ? c.diversion.package : c.diversion.divert_to) = args[++k];
      } else if (a == "--list" || a == "--listpackage" || a == "--truename" || a == "--remove") {
        add = false;
      } else if (a.starts_with('-')) {
        ok = false;
      } else {
        files.push_back(a);
      }
    }
    if (!add && std::find(args.begin(), args.end(), "--remove") == args.end()) continue;  // a query
    if (!add || !ok || files.size() != 1 || !files[0].starts_with('/') ||
        (!c.diversion.divert_to.empty() && !c.diversion.divert_to.starts_with('/')) ||
        files[0].find('\n') != std::string::npos || c.diversion.divert_to.find('\n') != std::string::npos ||
        c.diversion.package.find('\n') != std::string::npos) {
      unreadable.push_back(written);
      continue;
    }
    c.diversion.path = files[0];
    if (c.diversion.divert_to.empty()) c.diversion.divert_to = files[0] + ".distrib";
    out.push_back(std::move(c));
  }
}

}  // namespace

std::vector<DivertCall> parse_divert_calls(std::string_view script, const std::string& package,
                                           std::vector<std::string>& unreadable) {
  ScriptExpander ex(script);
  std::vector<DivertCall> out;
  for (const auto& line : ex.lines()) {
    auto w = ex.command_words(line);
    scan(w, package, out, unreadable, false);
    // Calls of the script's functions: a command word naming one.
    for (std::size_t i = 0; i < w.size(); ++i) {
      bool command_position = i == 0 || divert_separator(w[i - 1]) || w[i - 1] == "then" || w[i - 1] == "do" ||
                              w[i - 1] == "else" || w[i - 1] == "!";
      if (!command_position) continue;
      std::size_t end = i;
      while (end < w.size() && !divert_separator(w[end])) ++end;
      std::vector<std::string> call(w.begin() + static_cast<long>(i), w.begin() + static_cast<long>(end));
      for (const auto& body : ex.call_words(call)) scan(body, package, out, unreadable, true);
    }
  }
  return out;
}

Result<std::vector<DpkgDiversion>> parse_diversions(std::string_view text) {
  std::vector<DpkgDiversion> out;
  auto lines = str::split(text, '\n');
  if (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() % 3 != 0) {
    return fail(ErrorCode::kInvalidArgument,
                "/var/lib/dpkg/diversions of the base: " + std::to_string(lines.size()) + " lines, not three per diversion");
  }
  for (std::size_t i = 0; i < lines.size(); i += 3) {
    out.push_back({std::string(lines[i]), std::string(lines[i + 1]), std::string(lines[i + 2])});
  }
  return out;
}

std::string format_diversions(const std::vector<DpkgDiversion>& diversions) {
  std::vector<const DpkgDiversion*> order;
  for (const auto& d : diversions) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(),
                   [](const DpkgDiversion* a, const DpkgDiversion* b) { return dpkg_bin(a->path) < dpkg_bin(b->path); });
  std::string out;
  for (const DpkgDiversion* d : order) out += d->path + "\n" + d->divert_to + "\n" + d->package + "\n";
  return out;
}

Result<Effects> diversion_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled) {
  Effects fx;
  std::vector<std::pair<const FragmentInfo*, DivertCall>> calls;
  for (const FragmentInfo* p : view.packages()) {
    for (const char* script : {"preinst", "postinst"}) {
      auto s = p->control_files.find(script);
      if (s == p->control_files.end() || s->second.find("dpkg-divert") == std::string::npos) continue;
      std::vector<std::string> unreadable;
      for (auto& c : parse_divert_calls(s->second, p->package, unreadable)) calls.emplace_back(p, std::move(c));
      for (const auto& u : unreadable) {
        fx.unreproduced.push_back(p->package + ": " + script + " runs `" + u + "`; not reproduced");
      }
      handled.push_back(p->package);  // what it could not read is listed call by call above
    }
  }
  if (calls.empty()) return fx;
  const auto& base = view.base();
  std::vector<DpkgDiversion> current;
  if (base.exists("var/lib/dpkg/diversions")) {
    STRATA_TRY(std::string text, base.read_small_file("var/lib/dpkg/diversions"));
    STRATA_TRY(current, parse_diversions(text));
  }
  std::optional<std::string> before_last;
  for (const auto& [p, c] : calls) {
    const DpkgDiversion& d = c.diversion;
    auto same = std::find_if(current.begin(), current.end(), [&](const DpkgDiversion& x) { return x.path == d.path; });
    if (same != current.end()) {
      if (same->divert_to != d.divert_to || same->package != d.package) {
        fx.unreproduced.push_back(p->package + ": dpkg-divert " + d.path + " clashes with the diversion to " +
                                  same->divert_to + " by " + same->package + " (dpkg-divert would fail); not reproduced");
      }
      continue;
    }
    std::string placed(str::strip(d.path, '/'));
    if (c.rename && base.exists(placed)) {
      fx.unreproduced.push_back(p->package + ": dpkg-divert --rename moves the base's " + d.path + " to " +
                                d.divert_to + "; not reproduced (only recorded)");
    }
    for (const FragmentInfo* other : view.packages()) {
      if (other == p || other->package == d.package) continue;
      if (std::any_of(other->entries.begin(), other->entries.end(), [&](const FragmentEntry& e) { return e.path == placed; })) {
        fx.unreproduced.push_back(other->package + ": ships " + d.path + ", diverted by " + p->package +
                                  " in the same layer; not placed at " + d.divert_to);
      }
    }
    before_last = format_diversions(current);
    current.push_back(d);
  }
  if (!before_last) return fx;
  fx.files.push_back(effect_file("var/lib/dpkg/diversions", format_diversions(current), 0644, epoch));
  fx.files.push_back(effect_file("var/lib/dpkg/diversions-old", std::move(*before_last), 0644, epoch));
  return fx;
}

}  // namespace strata::layer
