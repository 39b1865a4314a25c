#include "layer/scratch/scratch_effects.hpp"

#include <algorithm>
#include <array>
#include <set>

#include "layer/deb/deb_reader.hpp"
#include "layer/scratch/scratch_accounts.hpp"
#include "layer/scratch/scratch_base.hpp"
#include "layer/scratch/scratch_shells.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

constexpr std::string_view kShellsDir = "usr/share/debianutils/shells.d/";

// Maintainer scripts whose effects scratch_effects reproduces, and how; the
// overlay builder's generic findings for them are dropped.
struct Emulated {
  std::string_view package;
  std::string_view how;
};
constexpr std::array<Emulated, 4> kEmulated{{
    {"base-passwd", "/etc/passwd and /etc/group from the master files"},
    {"passwd", "shadowconfig on: /etc/shadow and /etc/gshadow (the shadow group comes from base-passwd)"},
    {"base-files", "default files, directories, /usr/local and the empty login records"},
    {"debianutils", "update-shells and the which alternative"},
}};

// Files other postinsts install on a fresh system, from a default the
// package ships (`from`) or empty; the rest of those scripts is not run.
struct DefaultFile {
  std::string_view package, from, to;
};
constexpr std::array<DefaultFile, 4> kDefaultFiles{{
    {"libc-bin", "usr/share/libc-bin/nsswitch.conf", "etc/nsswitch.conf"},
    {"libpam-modules", "", "etc/environment"},
    {"login", "", "etc/subuid"},
    {"login", "", "etc/subgid"},
}};

const Emulated* emulated(const std::string& package) {
  for (const auto& e : kEmulated)
    if (e.package == package) return &e;
  return nullptr;
}

// Reads the named data.tar files of one .deb.
Result<std::map<std::string, std::string>> read_deb_files(const std::filesystem::path& deb, const std::string& what,
                                                          const std::set<std::string>& wanted) {
  std::map<std::string, std::string> out;
  STRATA_TRY(auto reader, DebReader::open(deb, what));
  STRATA_TRY(auto control, reader->control());
  (void)control;
  STRATA_TRY(auto data, reader->data());
  while (out.size() < wanted.size()) {
    STRATA_TRY(auto entry, data->next());
    if (!entry) break;
    if (entry->type != oci::TarEntryType::kRegular || !wanted.contains(entry->path)) continue;
    STRATA_TRY(out[entry->path], data->read_data_string(std::size_t{1} << 20));
  }
  return out;
}

class Builder {
 public:
  Builder(const OverlayView& view, const ScratchEffectsInput& in) : view_(view), in_(in) {}

  // Content of a file some package ships at `path` (placed), or nullopt.
  Result<std::optional<std::string>> file(const std::string& path) {
    if (auto it = cache_.find(path); it != cache_.end()) return it->second;
    const FragmentEntry* e = view_.layer_entry(path);
    if (!e || e->type != oci::TarEntryType::kRegular) return std::optional<std::string>();
    for (const FragmentInfo* p : view_.packages()) {
      bool ships = std::any_of(p->entries.begin(), p->entries.end(), [&](const FragmentEntry& x) {
        return x.path == path && x.type == oci::TarEntryType::kRegular;
      });
      if (!ships) continue;
      auto deb = in_.debs.find(p->package);
      if (deb == in_.debs.end()) break;
      // Everything this builder reads from the same package, in one pass.
      std::set<std::string> wanted{path};
      for (const auto& x : p->entries) {
        if (x.type == oci::TarEntryType::kRegular && interesting(x.path)) wanted.insert(x.path);
      }
      STRATA_TRY(auto files, read_deb_files(deb->second, p->package, wanted));
      for (auto& [k, v] : files) cache_[k] = std::move(v);
    }
    if (auto it = cache_.find(path); it != cache_.end()) return it->second;
    return std::optional<std::string>();
  }

  static bool interesting(const std::string& path) {
    return path.starts_with("usr/share/base-passwd/") || path.starts_with("usr/share/base-files/") ||
           path.starts_with("usr/share/debianutils/") || path.starts_with("usr/share/libc-bin/");
  }

  bool has(const std::string& path) const { return view_.exists(path) || added_.contains(path); }

  void add(EffectFile f) {
    added_.insert(f.entry.path);
    out_.files.push_back(std::move(f));
  }
  void dir(const std::string& path, std::uint32_t mode, std::uint64_t gid = 0) {
    if (has(path)) return;
    EffectFile f;
    f.entry.path = path;
    f.entry.type = oci::TarEntryType::kDirectory;
    f.entry.mode = mode;
    f.entry.gid = gid;
    f.entry.mtime = in_.epoch;
    add(std::move(f));
  }
  void link(const std::string& path, const std::string& target) {
    if (has(path)) return;
    add(effect_symlink(path, target, in_.epoch));
  }
  void put(const std::string& path, std::string content, std::uint32_t mode, std::uint64_t gid = 0) {
    auto f = effect_file(path, std::move(content), mode, in_.epoch);
    f.entry.gid = gid;
    add(std::move(f));
  }
  void unreproduced(std::string line) { out_.unreproduced.push_back(std::move(line)); }
  void note(std::string line) { out_.notes.push_back(std::move(line)); }

  Effects take() { return std::move(out_); }
  const OverlayView& view() const { return view_; }
  const ScratchEffectsInput& in() const { return in_; }

 private:
  const OverlayView& view_;
  const ScratchEffectsInput& in_;
  std::map<std::string, std::optional<std::string>> cache_;
  std::set<std::string> added_;
  Effects out_;
};

bool installed(const OverlayView& view, std::string_view name) {
  return std::any_of(view.packages().begin(), view.packages().end(),
                     [&](const FragmentInfo* p) { return p->package == name; });
}

Result<void> accounts(Builder& b, std::optional<std::uint64_t>& group_text_mail, std::optional<std::uint64_t>& utmp) {
  STRATA_TRY(auto passwd, b.file("usr/share/base-passwd/passwd.master"));
  STRATA_TRY(auto group, b.file("usr/share/base-passwd/group.master"));
  if (!passwd || !group) {
    b.unreproduced("scratch: no package ships /usr/share/base-passwd/{passwd,group}.master; no /etc/passwd or "
                   "/etc/group written");
    return {};
  }
  STRATA_TRY(auto files, account_effects(*passwd, *group, b.in().epoch, "base-passwd"));
  for (auto& f : files) b.add(std::move(f));
  group_text_mail = account_id(*group, "mail");
  utmp = account_id(*group, "utmp");
  return {};
}

Result<void> shells(Builder& b) {
  STRATA_TRY(auto tmpl, b.file("usr/share/debianutils/shells"));
  std::vector<std::pair<std::string, std::string>> declared;
  for (const FragmentInfo* p : b.view().packages()) {
    for (const auto& e : p->entries) {
      if (e.type != oci::TarEntryType::kRegular || !e.path.starts_with(kShellsDir)) continue;
      // shells.d files are read through the package's .deb like the others.
      auto deb = b.in().debs.find(p->package);
      if (deb == b.in().debs.end()) continue;
      STRATA_TRY(auto files, read_deb_files(deb->second, p->package, {e.path}));
      if (auto it = files.find(e.path); it != files.end()) declared.emplace_back(e.path.substr(kShellsDir.size()), it->second);
    }
  }
  if (!tmpl && declared.empty()) return {};
  if (!tmpl) {
    b.unreproduced("scratch: shells are declared in /" + std::string(kShellsDir) +
                   " but no package ships /usr/share/debianutils/shells; /etc/shells not written");
    return {};
  }
  const auto& rules = b.view().rules();
  auto real_dir = [&rules](const std::string& dir) {
    std::string d = dir.starts_with('/') ? dir.substr(1) : dir;
    auto r = rules.base().resolve(d);
    return r ? "/" + *r : dir;
  };
  Shells s = update_shells(*tmpl, declared, real_dir);
  b.put("etc/shells", s.etc_shells, 0644);
  b.put("var/lib/shells.state", s.state, 0644);
  return {};
}

// base-files' postinst on a fresh install (`configure` with no old version).
Result<void> base_files(Builder& b, std::optional<std::uint64_t> mail_gid, std::optional<std::uint64_t> utmp_gid) {
  if (!installed(b.view(), "base-files")) return {};
  for (auto [from, to] : {std::pair{"dot.profile", "root/.profile"}, std::pair{"dot.bashrc", "root/.bashrc"},
                          std::pair{"profile", "etc/profile"}, std::pair{"motd", "etc/motd"}}) {
    STRATA_TRY(auto content, b.file("usr/share/base-files/" + std::string(from)));
    if (!content) {
      b.unreproduced(std::string("base-files: /usr/share/base-files/") + from + " missing; /" + to + " not written");
      continue;
    }
    if (!b.has(to)) b.put(to, *content, 0644);
  }
  for (const char* d : {"mnt", "srv", "opt", "etc/opt", "var/opt", "media"}) b.dir(d, 0755);
  b.dir("var/mail", 02775, mail_gid.value_or(0));
  b.link("var/spool/mail", "../mail");
  b.dir("run/lock", 01777);
  for (const char* d : {"usr/local", "usr/local/share", "usr/local/share/man", "usr/local/bin", "usr/local/games",
                        "usr/local/lib", "usr/local/include", "usr/local/sbin", "usr/local/src", "usr/local/etc"}) {
    b.dir(d, 0755);
  }
  b.link("usr/local/man", "share/man");
  for (auto [path, mode] : {std::pair{"var/log/wtmp", 0664u}, std::pair{"var/log/btmp", 0660u},
                            std::pair{"var/log/lastlog", 0664u}}) {
    if (!b.has(path)) b.put(path, "", mode, utmp_gid.value_or(0));
  }
  if (b.view().exists("usr/share/info") && !b.has("usr/share/info/dir")) {
    STRATA_TRY(auto dir, b.file("usr/share/base-files/info.dir"));
    if (dir) b.put("usr/share/info/dir", *dir, 0644);
  }
  if (b.view().exists("etc/dpkg/origins/debian")) b.link("etc/dpkg/origins/default", "debian");
  return {};
}

}  // namespace

std::string scratch_sources_file(const std::vector<LockSource>& sources) {
  // One stanza per (URI, components, key), suites in lock order.
  std::vector<std::pair<std::string, std::vector<std::string>>> stanzas;
  for (const auto& s : sources) {
    std::string head = "Types: deb\nURIs: " + s.uri + "\n";
    std::string tail = "Components: " + str::join(s.components, " ") + "\n";
    if (!s.fingerprint.empty()) tail += "Signed-By: " + s.fingerprint + "\n";
    std::string key = head + "\n" + tail;
    auto it = std::find_if(stanzas.begin(), stanzas.end(), [&](const auto& x) { return x.first == key; });
    if (it == stanzas.end()) {
      stanzas.emplace_back(key, std::vector<std::string>{s.suite});
    } else {
      it->second.push_back(s.suite);
    }
  }
  std::string out = "# Written by strata build --base scratch: the sources this image was built from.\n";
  for (const auto& [key, suites] : stanzas) {
    auto cut = key.find("\n\n");
    out += "\n" + key.substr(0, cut + 1) + "Suites: " + str::join(suites, " ") + "\n" + key.substr(cut + 2);
  }
  return out;
}

Result<Effects> scratch_effects(const OverlayView& view, const ScratchEffectsInput& in,
                                std::vector<std::string>& unreproduced) {
  Builder b(view, in);
  for (auto& f : skeleton_effects(in.epoch)) b.add(std::move(f));
  std::optional<std::uint64_t> mail_gid, utmp_gid;
  STRATA_TRY_VOID(accounts(b, mail_gid, utmp_gid));
  STRATA_TRY_VOID(shells(b));
  STRATA_TRY_VOID(base_files(b, mail_gid, utmp_gid));
  std::map<std::string, std::vector<std::string>> defaults_by_package;
  for (const auto& d : kDefaultFiles) {
    if (!installed(view, d.package) || b.has(std::string(d.to))) continue;
    std::string content;
    if (!d.from.empty()) {
      STRATA_TRY(auto shipped, b.file(std::string(d.from)));
      if (!shipped) continue;  // not this version's default: reported with the script below
      content = std::move(*shipped);
    }
    b.put(std::string(d.to), std::move(content), 0644);
    defaults_by_package[std::string(d.package)].push_back("/" + std::string(d.to));
  }
  if (installed(view, "base-files") && view.layer_entry("var/run") &&
      view.layer_entry("var/run")->type == oci::TarEntryType::kDirectory) {
    b.unreproduced("base-files: postinst turns /var/run and /var/lock into links to /run and /run/lock; they stay "
                   "directories");
  }
  b.dir("tmp", 01777);
  b.dir("root", 0700);
  b.put("etc/machine-id", "", 0444);
  b.put("etc/apt/sources.list.d/strata.sources", scratch_sources_file(in.sources), 0644);
  b.put("var/lib/dpkg/arch", in.debian_arch + "\n", 0644);
  for (const char* f : {"var/lib/dpkg/available", "var/lib/dpkg/diversions", "var/lib/dpkg/statoverride"}) {
    if (!view.exists(f)) b.put(f, "", 0644);
  }

  // The builder's findings for emulated scripts are covered here; every other
  // postinst is listed as not run (alternatives and ldconfig aside).
  std::erase_if(unreproduced, [](const std::string& u) {
    auto colon = u.find(':');
    return colon != std::string::npos && emulated(u.substr(0, colon)) != nullptr;
  });
  for (const FragmentInfo* p : view.packages()) {
    if (!p->control_files.contains("postinst")) continue;
    if (const Emulated* e = emulated(p->package)) {
      b.note(p->package + ": postinst reproduced (" + std::string(e->how) + ")");
      continue;
    }
    std::string also;
    if (auto d = defaults_by_package.find(p->package); d != defaults_by_package.end()) {
      also = ", and the fresh-install files " + str::join(d->second, " ");
    }
    b.unreproduced(p->package + ": postinst not run; only its update-alternatives calls, the ldconfig cache" + also +
                   " are reproduced");
  }
  return b.take();
}

}  // namespace strata::layer
