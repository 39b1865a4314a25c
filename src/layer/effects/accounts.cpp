#include "layer/effects/accounts.hpp"

#include <algorithm>
#include <set>

#include "layer/effects/script_expand.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

bool account_separator(const std::string& w) { return w == ";" || w == "&" || w == "|" || w == "&&" || w == "||"; }
bool account_redirect(const std::string& w) {
  return w.starts_with('>') || w.starts_with('<') || w.starts_with("2>") || w.starts_with("1>") || w.starts_with("&>");
}

// A user or group name adduser's sys_name_regex accepts: ^[a-z_][a-z0-9_-]*\$?$
bool valid_name(std::string_view n) {
  if (n.empty() || n.size() > 32) return false;
  if (!((n[0] >= 'a' && n[0] <= 'z') || n[0] == '_')) return false;
  for (std::size_t i = 1; i < n.size(); ++i) {
    char c = n[i];
    bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || (c == '$' && i + 1 == n.size());
    if (!ok) return false;
  }
  return true;
}

// A field value safe to write into a colon-separated account file.
bool safe_field(std::string_view v) { return v.find_first_of(":\n") == std::string_view::npos; }

std::optional<AccountCall> parse_adduser(const std::vector<std::string>& args, bool addgroup, std::string& why) {
  AccountCall c;
  c.kind = addgroup ? AccountCall::Kind::kGroup : AccountCall::Kind::kUser;
  bool system = false;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&]() -> std::optional<std::string> {
      if (i + 1 >= args.size()) return std::nullopt;
      return args[++i];
    };
    if (a == "--system") {
      system = true;
    } else if (a == "--quiet" || a == "-q" || a == "--disabled-password" || a == "--disabled-login" ||
               a == "--force-badname" || a == "--allow-bad-names") {
    } else if (a == "--group") {
      if (addgroup) {
        c.kind = AccountCall::Kind::kGroup;
      } else {
        c.make_group = true;
      }
    } else if (a == "--no-create-home") {
      c.no_create_home = true;
    } else if (a == "--ingroup" || a == "--home" || a == "--shell" || a == "--gecos" || a == "--comment" ||
               a == "--uid" || a == "--gid") {
      auto v = value();
      if (!v || !safe_field(*v)) {
        why = a + " without a usable value";
        return std::nullopt;
      }
      if (a == "--ingroup") c.ingroup = *v;
      if (a == "--home") c.home = *v;
      if (a == "--shell") c.shell = *v;
      if (a == "--gecos" || a == "--comment") c.gecos = *v;
      if (a == "--uid" || a == "--gid") {
        auto n = str::parse_u64(*v);
        if (!n || *n > 0xfffffffeULL) {
          why = a + " " + *v + " is not an id";
          return std::nullopt;
        }
        (a == "--uid" ? c.uid : c.gid) = *n;
      }
    } else if (a.starts_with('-')) {
      why = "option " + a + " is not known to strata";
      return std::nullopt;
    } else {
      names.push_back(a);
    }
  }
  if (!system) {
    why = "not a system account";
    return std::nullopt;
  }
  // `adduser --system NAME GROUP` adds a user to a group: not an account.
  if (names.size() != 1 || !valid_name(names[0])) {
    why = names.size() == 1 ? "the name " + str::quote(names[0]) + " is not one adduser accepts" : "not one name";
    return std::nullopt;
  }
  c.name = names[0];
  return c;
}

struct Entry {
  std::vector<std::string> fields;
};

std::vector<Entry> parse_lines(std::string_view text) {
  std::vector<Entry> out;
  for (auto line : str::split(text, '\n')) {
    if (line.empty()) continue;
    Entry e;
    for (auto f : str::split(line, ':')) e.fields.emplace_back(f);
    out.push_back(std::move(e));
  }
  return out;
}

bool id_taken(std::string_view text, std::uint64_t id) {
  for (const auto& e : parse_lines(text)) {
    if (e.fields.size() >= 3 && str::parse_u64(e.fields[2]) == id) return true;
  }
  return false;
}

std::optional<std::uint64_t> first_free(std::string_view text, std::uint64_t lo, std::uint64_t hi) {
  for (std::uint64_t id = lo; id <= hi && id < lo + 100000; ++id) {
    if (!id_taken(text, id)) return id;
  }
  return std::nullopt;
}

void append_line(std::optional<std::string>& file, const std::string& line) {
  std::string& t = *file;
  if (!t.empty() && !t.ends_with('\n')) t += '\n';
  t += line + "\n";
}

}  // namespace

AccountScript parse_account_calls(std::string_view script) {
  ScriptExpander ex(script);
  AccountScript out;
  for (const auto& line : ex.lines()) {
    auto w = ex.command_words(line);
    for (std::size_t i = 0; i < w.size(); ++i) {
      std::string cmd(oci::base_name(w[i]));
      if (cmd != "adduser" && cmd != "addgroup" && cmd != "chown" && cmd != "chmod" && cmd != "useradd" &&
          cmd != "groupadd") {
        continue;
      }
      // A command word: at the start or after a separator or `then`/`do`/`!`.
      if (i > 0 && !account_separator(w[i - 1]) && w[i - 1] != "then" && w[i - 1] != "do" && w[i - 1] != "else" &&
          w[i - 1] != "!") {
        continue;
      }
      std::size_t end = i + 1;
      std::vector<std::string> args;
      while (end < w.size() && !account_separator(w[end])) {
        if (!account_redirect(w[end])) args.push_back(w[end]);
        ++end;
      }
      std::string written = cmd + " " + str::join(args, " ");
      i = end;
      if (std::any_of(args.begin(), args.end(), [](const std::string& a) {
            return a.find('$') != std::string::npos || a.find('`') != std::string::npos;
          })) {
        out.unreadable.push_back(written);
        continue;
      }
      if (cmd == "useradd" || cmd == "groupadd") {
        out.unreadable.push_back(written);
        continue;
      }
      if (cmd == "adduser" || cmd == "addgroup") {
        std::string why;
        auto c = parse_adduser(args, cmd == "addgroup", why);
        if (c) {
          out.accounts.push_back(std::move(*c));
        } else {
          out.unreadable.push_back(written + " (" + why + ")");
        }
        continue;
      }
      // chown U[:G] PATH / chmod MODE PATH, no options, one path.
      if (args.size() != 2 || args[0].starts_with('-') || !args[1].starts_with('/')) {
        out.unreadable.push_back(written);
        continue;
      }
      OwnershipCall o;
      o.path = args[1];
      if (cmd == "chown") {
        auto colon = args[0].find_first_of(":.");
        o.user = args[0].substr(0, colon);
        if (colon != std::string::npos) o.group = args[0].substr(colon + 1);
        if ((!o.user.empty() && !valid_name(o.user) && !str::parse_u64(o.user)) ||
            (!o.group.empty() && !valid_name(o.group) && !str::parse_u64(o.group))) {
          out.unreadable.push_back(written);
          continue;
        }
      } else {
        std::uint32_t m = 0;
        bool octal = !args[0].empty() && args[0].size() <= 4;
        for (char ch : args[0]) {
          if (ch < '0' || ch > '7') octal = false;
          m = m * 8 + static_cast<std::uint32_t>(ch - '0');
        }
        if (!octal) {
          out.unreadable.push_back(written);
          continue;
        }
        o.mode = m;
      }
      out.ownership.push_back(std::move(o));
    }
  }
  return out;
}

AdduserConfig parse_adduser_conf(std::string_view text) {
  AdduserConfig c;
  for (auto line : str::split(text, '\n')) {
    line = str::trim(line);
    if (line.empty() || line.starts_with('#')) continue;
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    std::string key = str::lower(str::trim(line.substr(0, eq)));
    std::string val = str::unquote(str::trim(line.substr(eq + 1)));
    auto n = str::parse_u64(val);
    if (!n || *n > 0xfffffffeULL) continue;
    if (key == "first_system_uid") c.first_system_uid = *n;
    if (key == "last_system_uid") c.last_system_uid = *n;
    if (key == "first_system_gid") c.first_system_gid = *n;
    if (key == "last_system_gid") c.last_system_gid = *n;
  }
  return c;
}

std::optional<std::uint64_t> account_file_id(std::string_view text, std::string_view name) {
  for (const auto& e : parse_lines(text)) {
    if (e.fields.size() >= 3 && e.fields[0] == name) return str::parse_u64(e.fields[2]);
  }
  return std::nullopt;
}

AccountsResult apply_account_calls(const AccountFiles& before, const std::vector<AccountCall>& calls,
                                   const AdduserConfig& config, std::int64_t days) {
  AccountsResult r;
  r.files = before;
  if (!r.files.passwd) r.files.passwd = "";
  if (!r.files.group) r.files.group = "";
  // Each tool backs a file up before it writes it: the `-` file is the
  // content before the last change.
  auto change = [&](std::optional<std::string>& file, std::optional<std::string>& backup, const std::string& line) {
    backup = file;
    append_line(file, line);
  };
  auto groupadd = [&](const std::string& name, std::uint64_t gid) {
    change(r.files.group, r.backups.group, name + ":x:" + std::to_string(gid) + ":");
    if (r.files.gshadow) change(r.files.gshadow, r.backups.gshadow, name + ":!::");
  };
  for (const auto& c : calls) {
    if (c.kind == AccountCall::Kind::kGroup) {
      if (account_file_id(*r.files.group, c.name)) continue;  // exists: adduser exits 0 (or refuses; nothing changes)
      std::optional<std::uint64_t> gid = c.gid;
      if (gid && id_taken(*r.files.group, *gid)) {
        r.failed.push_back("addgroup --system " + c.name + ": GID " + std::to_string(*gid) + " is in use");
        continue;
      }
      if (!gid) gid = first_free(*r.files.group, config.first_system_gid, config.last_system_gid);
      if (!gid) {
        r.failed.push_back("addgroup --system " + c.name + ": no free GID");
        continue;
      }
      groupadd(c.name, *gid);
      continue;
    }
    if (account_file_id(*r.files.passwd, c.name)) continue;
    std::optional<std::uint64_t> uid = c.uid;
    if (!uid) uid = first_free(*r.files.passwd, config.first_system_uid, config.last_system_uid);
    if (!uid) {
      r.failed.push_back("adduser --system " + c.name + ": no free UID");
      continue;
    }
    std::optional<std::uint64_t> gid;
    std::string group_name;
    bool make = false;
    if (c.make_group && !c.uid && c.ingroup.empty() && !c.gid) {
      gid = first_free(*r.files.group, config.first_system_gid, config.last_system_gid);
      group_name = c.name;
      make = true;
    } else if (c.gid) {
      gid = c.gid;
    } else if (!c.ingroup.empty()) {
      gid = account_file_id(*r.files.group, c.ingroup);
      group_name = c.ingroup;
    } else if (c.make_group) {
      gid = uid;
      group_name = c.name;
      make = true;
    } else {
      gid = account_file_id(*r.files.group, "nogroup").value_or(65534);
    }
    if (!gid) {
      r.failed.push_back("adduser --system " + c.name + ": group " + group_name + " does not exist");
      continue;
    }
    if (make && account_file_id(*r.files.group, c.name)) {
      gid = account_file_id(*r.files.group, c.name);
      make = false;
    }
    if (make) groupadd(c.name, *gid);
    std::string home = c.home.empty() ? "/nonexistent" : c.home;
    std::string shell = c.shell.empty() ? "/usr/sbin/nologin" : c.shell;
    bool shadow = r.files.shadow.has_value();
    change(r.files.passwd, r.backups.passwd,
           c.name + ":" + (shadow ? "x" : "!") + ":" + std::to_string(*uid) + ":" + std::to_string(*gid) + ":" +
               c.gecos + ":" + home + ":" + shell);
    if (shadow) change(r.files.shadow, r.backups.shadow, c.name + ":!:" + std::to_string(days) + "::::::");
    bool nonexistent = home == "/nonexistent" || home.starts_with("/nonexistent/");
    if (!nonexistent && !c.no_create_home) r.homes.emplace_back(home, *uid, *gid);
  }
  return r;
}

bool accounts_capture(std::string_view path) {
  return path == "etc/passwd" || path == "etc/group" || path == "etc/shadow" || path == "etc/gshadow" ||
         path == "etc/adduser.conf";
}

Result<Effects> accounts_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled) {
  Effects fx;
  std::vector<AccountCall> calls;
  std::vector<std::pair<const FragmentInfo*, OwnershipCall>> ownership;
  for (const FragmentInfo* p : view.packages()) {
    auto s = p->control_files.find("postinst");
    if (s == p->control_files.end()) continue;
    AccountScript parsed = parse_account_calls(s->second);
    if (parsed.accounts.empty() && parsed.ownership.empty()) continue;
    for (const auto& u : parsed.unreadable) fx.unreproduced.push_back(p->package + ": postinst runs `" + u + "`; not reproduced");
    for (auto& c : parsed.accounts) calls.push_back(std::move(c));
    for (auto& o : parsed.ownership) ownership.emplace_back(p, std::move(o));
    handled.push_back(p->package);  // what it could not read is listed call by call above
  }
  if (calls.empty() && ownership.empty()) return fx;
  const auto& base = view.base();
  auto read = [&](const std::string& path) -> std::optional<std::string> {
    if (!base.exists(path)) return std::nullopt;
    auto t = base.read_small_file(path);
    if (!t) return std::nullopt;
    return *t;
  };
  AccountFiles before{read("etc/passwd"), read("etc/group"), read("etc/shadow"), read("etc/gshadow")};
  if (!before.passwd || !before.group) {
    // A scratch root: base-passwd makes the files in the same layer
    // (layer/scratch), after which the accounts would be added.
    for (const auto& c : calls) {
      fx.unreproduced.push_back((c.kind == AccountCall::Kind::kGroup ? "addgroup --system " : "adduser --system ") +
                                c.name + ": the base has no /etc/passwd or /etc/group; not reproduced");
    }
    return fx;
  }
  std::string conf_text = read("etc/adduser.conf").value_or("");
  for (const FragmentInfo* p : view.packages()) {
    if (auto c = p->captured.find("etc/adduser.conf"); c != p->captured.end()) conf_text = c->second;
  }
  std::int64_t days = epoch / 86400;
  AccountsResult r = apply_account_calls(before, calls, parse_adduser_conf(conf_text), days);
  for (const auto& f : r.failed) fx.unreproduced.push_back(f + " (the postinst would fail); not reproduced");

  // The files keep their mode and owner; a backup takes the file's.
  auto write = [&](const char* name, const std::optional<std::string>& now, const std::optional<std::string>& was,
                   const std::optional<std::string>& backup, std::uint32_t default_mode) {
    if (!now || now == was) return;
    std::string path = std::string("etc/") + name;
    oci::TarEntry meta;
    meta.mode = default_mode;
    if (auto n = base.lookup(path); n && (*n)->type == oci::TarEntryType::kRegular) {
      meta.mode = (*n)->mode & 07777;
      meta.uid = (*n)->uid;
      meta.gid = (*n)->gid;
    }
    for (const auto& [p, text] : {std::pair{path, *now}, std::pair{path + "-", backup.value_or("")}}) {
      EffectFile f = effect_file(p, text, meta.mode, epoch);
      f.entry.uid = meta.uid;
      f.entry.gid = meta.gid;
      fx.files.push_back(std::move(f));
    }
  };
  write("passwd", r.files.passwd, before.passwd, r.backups.passwd, 0644);
  write("group", r.files.group, before.group, r.backups.group, 0644);
  write("shadow", r.files.shadow, before.shadow, r.backups.shadow, 0640);
  write("gshadow", r.files.gshadow, before.gshadow, r.backups.gshadow, 0640);
  bool changed = r.files.passwd != before.passwd || r.files.group != before.group;
  if (changed) {
    EffectFile lock = effect_file("etc/.pwd.lock", "", 0600, epoch);
    fx.files.push_back(std::move(lock));
    if (view.exists("run")) fx.files.push_back(effect_file("run/adduser", "", 0644, epoch));
  }
  for (const auto& [home, uid, gid] : r.homes) {
    std::string placed = view.rules().place(std::string(str::strip(home, '/')), "");
    if (view.exists(placed)) continue;
    EffectFile d;
    d.entry.path = placed;
    d.entry.type = oci::TarEntryType::kDirectory;
    d.entry.mode = 0755;
    d.entry.uid = uid;
    d.entry.gid = gid;
    d.entry.mtime = epoch;
    fx.files.push_back(std::move(d));
  }

  // chown/chmod of what the package itself ships, with the names resolved
  // in the accounts as they are now.
  std::map<std::string, oci::TarEntry> changed_dirs;
  for (const auto& [p, o] : ownership) {
    std::string placed = view.rules().place(std::string(str::strip(o.path, '/')), p->package);
    const oci::TarEntry* dir = nullptr;
    for (const auto& d : p->directories) {
      if (d.path == placed) dir = &d;
    }
    std::string what = o.mode ? "chmod " + std::to_string(*o.mode) : "chown " + o.user + ":" + o.group;
    if (!dir) {
      fx.unreproduced.push_back(p->package + ": postinst runs `" + what + " " + o.path +
                                "` on what it does not ship as a directory; not reproduced");
      continue;
    }
    auto [it, fresh] = changed_dirs.emplace(placed, *dir);
    oci::TarEntry& e = it->second;
    (void)fresh;
    if (o.mode) e.mode = *o.mode;
    auto resolve = [](const std::optional<std::string>& text, const std::string& name) -> std::optional<std::uint64_t> {
      if (auto n = str::parse_u64(name)) return n;
      return account_file_id(text.value_or(""), name);
    };
    if (!o.user.empty()) {
      auto uid = resolve(r.files.passwd, o.user);
      if (!uid) {
        fx.unreproduced.push_back(p->package + ": postinst runs `" + what + " " + o.path + "`: no user " + o.user +
                                  "; not reproduced");
        continue;
      }
      e.uid = *uid;
    }
    if (!o.group.empty()) {
      auto gid = resolve(r.files.group, o.group);
      if (!gid) {
        fx.unreproduced.push_back(p->package + ": postinst runs `" + what + " " + o.path + "`: no group " + o.group +
                                  "; not reproduced");
        continue;
      }
      e.gid = *gid;
    }
    // chown clears setuid/setgid on files, not on directories (GNU chown).
  }
  for (auto& [path, e] : changed_dirs) {
    EffectFile d;
    d.entry = e;
    d.entry.mtime = std::min<std::int64_t>(d.entry.mtime, epoch);
    fx.files.push_back(std::move(d));
  }
  return fx;
}

}  // namespace strata::layer
