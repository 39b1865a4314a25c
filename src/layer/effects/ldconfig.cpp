#include "layer/effects/ldconfig.hpp"

#include <fnmatch.h>

#include <set>

#include "layer/deb/elf_info.hpp"
#include "layer/effects/ld_so_cache.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {


class ConfReader {
 public:
  explicit ConfReader(const OverlayView& view) : view_(view) {
    for (const FragmentInfo* p : view.packages()) {
      for (const auto& [path, text] : p->captured) layer_files_[path] = text;
    }
  }
  std::optional<std::string> read(const std::string& path) const {
    if (auto it = layer_files_.find(path); it != layer_files_.end()) return it->second;
    auto text = view_.base().read_small_file(path);
    if (text) return *text;
    return std::nullopt;
  }
  std::vector<std::string> glob(const std::string& pattern) const {
    std::string dir(oci::parent_path(pattern));
    std::set<std::string> names;
    if (auto base = view_.base().list(dir)) names.insert(base->begin(), base->end());
    for (const auto& [path, text] : layer_files_) {
      if (oci::parent_path(path) == dir) names.insert(std::string(oci::base_name(path)));
    }
    std::vector<std::string> out;
    for (const auto& n : names) {
      std::string full = dir + "/" + n;
      if (::fnmatch(pattern.c_str(), full.c_str(), 0) == 0) out.push_back(full);
    }
    return out;
  }
  // Directories of a conf file, includes expanded in place.
  void dirs(const std::string& path, std::vector<std::string>& out, int depth) const {
    if (depth > 8) return;
    auto text = read(path);
    if (!text) return;
    for (auto raw : str::split(*text, '\n')) {
      std::string_view line = raw.substr(0, raw.find('#'));
      line = str::trim(line);
      if (line.empty()) continue;
      if (line.starts_with("include") && line.size() > 7 && (line[7] == ' ' || line[7] == '\t')) {
        for (auto pattern : str::split_ws(line.substr(8))) {
          std::string p(str::strip(pattern, '/', true));
          if (!pattern.starts_with('/')) p = std::string(oci::parent_path(path)) + "/" + p;
          for (const auto& f : glob(p)) dirs(f, out, depth + 1);
        }
        continue;
      }
      if (line.starts_with("hwcap")) continue;
      out.push_back("/" + std::string(str::strip(line, '/', true)));
    }
  }

 private:
  const OverlayView& view_;
  std::map<std::string, std::string> layer_files_;
};

}  // namespace

std::string multiarch_triplet(std::string_view arch) {
  static const std::map<std::string_view, std::string_view> kTriplets{
      {"amd64", "x86_64-linux-gnu"},         {"arm64", "aarch64-linux-gnu"},
      {"i386", "i386-linux-gnu"},            {"armhf", "arm-linux-gnueabihf"},
      {"armel", "arm-linux-gnueabi"},        {"ppc64el", "powerpc64le-linux-gnu"},
      {"s390x", "s390x-linux-gnu"},          {"riscv64", "riscv64-linux-gnu"},
      {"mips64el", "mips64el-linux-gnuabi64"}};
  auto it = kTriplets.find(arch);
  return it == kTriplets.end() ? std::string() : std::string(it->second);
}

bool ldconfig_capture(std::string_view path) {
  return path == "etc/ld.so.cache" || path == "etc/ld.so.conf" || path.starts_with("etc/ld.so.conf.d/");
}

bool ldconfig_library(std::string_view path) {
  return oci::parent_path(path).find("lib") != std::string_view::npos && looks_like_library_name(oci::base_name(path));
}

// "FLAGS SONAME", FLAGS in decimal; "" for anything that is not an ELF library.
std::string ldconfig_summary(std::string_view content) {
  auto lib = read_elf_library(content);
  if (!lib) return "";
  return std::to_string(lib->cache_flags) + " " + lib->soname;
}

namespace {

// "a/b/../c" → "a/c", no leading or trailing "/"; ".." stops at the root.
std::string normalize(std::string_view path) {
  std::vector<std::string_view> parts;
  for (auto part : str::split(path, '/')) {
    if (part.empty() || part == ".") continue;
    if (part == "..") {
      if (!parts.empty()) parts.pop_back();
      continue;
    }
    parts.push_back(part);
  }
  std::string out;
  for (auto part : parts) out += (out.empty() ? "" : "/") + std::string(part);
  return out;
}

struct LibraryFacts {
  std::string soname;
  std::int32_t flags = 0;
};

// The layer on top of the base, as ldconfig sees a directory of it.
class MergedLibraries {
 public:
  explicit MergedLibraries(const OverlayView& view) : view_(view) {
    for (const FragmentInfo* p : view.packages()) {
      for (const auto& lib : p->libraries) libraries_[lib.path] = {lib.soname, lib.flags};
      for (const auto& e : p->entries) names_[std::string(oci::parent_path(e.path))].insert(std::string(oci::base_name(e.path)));
    }
  }
  std::set<std::string> names(const std::string& dir) const {
    std::set<std::string> out;
    if (auto base = view_.base().list(dir)) out.insert(base->begin(), base->end());
    if (auto it = names_.find(dir); it != names_.end()) out.insert(it->second.begin(), it->second.end());
    return out;
  }
  // Whether `path` is a symlink; nullopt when it is neither a symlink nor a regular file.
  std::optional<bool> is_link(const std::string& path) const {
    if (const FragmentEntry* e = view_.layer_entry(path)) {
      if (e->type == oci::TarEntryType::kSymlink) return true;
      if (e->type == oci::TarEntryType::kRegular || e->type == oci::TarEntryType::kHardlink) return false;
      return std::nullopt;
    }
    auto node = view_.base().lookup(path, oci::ImageFilesystem::Follow::kNo);
    if (!node) return std::nullopt;
    if ((*node)->type == oci::TarEntryType::kSymlink) return true;
    if ((*node)->type == oci::TarEntryType::kRegular) return false;
    return std::nullopt;
  }
  // The ELF facts of what `path` leads to, symlinks followed through the
  // layer and the base; nullopt for anything but a shared library.
  std::optional<LibraryFacts> facts(std::string path) const {
    for (int hops = 0; hops < 40; ++hops) {
      std::string target;
      if (const FragmentEntry* e = view_.layer_entry(path)) {
        if (e->type == oci::TarEntryType::kRegular) {
          auto it = libraries_.find(path);
          if (it == libraries_.end()) return std::nullopt;
          return it->second;
        }
        if (e->type == oci::TarEntryType::kHardlink) {
          path = e->link_target;
          continue;
        }
        if (e->type != oci::TarEntryType::kSymlink) return std::nullopt;
        target = e->link_target;
      } else {
        auto node = view_.base().lookup(path, oci::ImageFilesystem::Follow::kNo);
        if (!node) {
          // A path through a base directory symlink: let the base resolve it.
          auto canonical = view_.base().resolve(path, oci::ImageFilesystem::Follow::kNo);
          if (!canonical || *canonical == path) return std::nullopt;
          path = *canonical;
          continue;
        }
        if ((*node)->type == oci::TarEntryType::kRegular) {
          auto summary = view_.base().summary(path);
          if (!summary) return std::nullopt;
          std::string_view text = *summary;
          std::size_t space = text.find(' ');
          if (space == std::string_view::npos) return std::nullopt;  // not an ELF library
          auto flags = str::parse_u64(text.substr(0, space));
          if (!flags || space + 1 >= text.size()) return std::nullopt;
          return LibraryFacts{std::string(text.substr(space + 1)), static_cast<std::int32_t>(*flags)};
        }
        if ((*node)->type != oci::TarEntryType::kSymlink) return std::nullopt;
        target = (*node)->link_target;
      }
      std::string joined = target.starts_with('/') ? target : std::string(oci::parent_path(path)) + "/" + target;
      path = view_.rules().place(normalize(joined), "");
    }
    return std::nullopt;
  }

 private:
  const OverlayView& view_;
  std::map<std::string, LibraryFacts> libraries_;
  std::map<std::string, std::set<std::string>> names_;
};

bool activates_ldconfig(const FragmentInfo& p) {
  auto it = p.control_files.find("triggers");
  if (it == p.control_files.end()) return false;
  for (auto line : str::split(it->second, '\n')) {
    auto words = str::split_ws(line);
    if (words.size() >= 2 && words[0].starts_with("activate") && words[1] == "ldconfig") return true;
  }
  return false;
}

}  // namespace

Result<Effects> ldconfig_effects(const OverlayView& view, std::string_view arch, std::int64_t epoch) {
  Effects fx;
  const auto& rules = view.rules();
  bool added = false;
  for (const FragmentInfo* p : view.packages()) added = added || !p->libraries.empty() || activates_ldconfig(*p);
  if (!added) return fx;

  ConfReader conf(view);
  std::vector<std::string> dirs;
  conf.dirs("etc/ld.so.conf", dirs, 0);
  // The built-in directories after the configured ones: the multiarch
  // pair, then /lib and /usr/lib (Debian's glibc).
  std::string triplet = multiarch_triplet(arch);
  if (!triplet.empty()) {
    dirs.push_back("/lib/" + triplet);
    dirs.push_back("/usr/lib/" + triplet);
  }
  dirs.push_back("/lib");
  dirs.push_back("/usr/lib");
  // Canonical directory → the configured name that reaches it first (the
  // same directory twice is searched once, as ldconfig's inode check does).
  std::vector<std::pair<std::string, std::string>> order;
  std::set<std::string> seen;
  MergedLibraries merged(view);
  for (const auto& d : dirs) {
    std::string canonical = rules.place(std::string(str::strip(d, '/', true)) + "/.", "");
    canonical = std::string(oci::parent_path(canonical));
    if (!view.exists(canonical)) continue;
    if (seen.insert(canonical).second) order.emplace_back(canonical, d);
  }

  // Per directory, ldconfig's choice per soname: a file before a link,
  // else the name that sorts newest. A symlink counts as a link (and is
  // cached under its own name) when its name is the soname or a
  // development name ("libpq.so") the soname starts with; any other
  // symlink stands for the file it leads to.
  std::vector<LdCacheEntry> entries;
  std::set<std::string> made_links;
  for (const auto& [canonical, configured] : order) {
    struct Choice {
      std::string name;
      bool is_link = false;
      std::int32_t flags = 0;
    };
    std::map<std::string, Choice> chosen;
    for (const auto& name : merged.names(canonical)) {
      if (!looks_like_library_name(name)) continue;
      std::string path = canonical + "/" + name;
      auto link = merged.is_link(path);
      if (!link) continue;
      auto lib = merged.facts(path);
      if (!lib || lib->soname.empty()) continue;
      bool is_link = *link;
      std::string soname = lib->soname;
      if (is_link && name != soname && !(name.ends_with(".so") && soname.starts_with(name))) is_link = false;
      if (is_link) soname = name;
      auto [it, inserted] = chosen.try_emplace(soname, Choice{name, is_link, lib->flags});
      if (inserted) continue;
      Choice& c = it->second;
      if ((!is_link && c.is_link) || (is_link == c.is_link && dl_cache_libcmp(c.name, name) < 0)) {
        c = Choice{name, is_link, c.flags};
      }
    }
    for (const auto& [soname, c] : chosen) {
      if (!c.is_link && c.name != soname) {
        std::string link = canonical + "/" + soname;
        if (!view.exists(link) && made_links.insert(link).second) {
          fx.files.push_back(effect_symlink(link, c.name, epoch));
        }
      }
      entries.push_back({soname, configured + "/" + soname, c.flags, 0});
    }
  }
  fx.files.push_back(effect_file(rules.place("etc/ld.so.cache", ""), write_ld_so_cache(std::move(entries)), 0644, epoch));
  return fx;
}

}  // namespace strata::layer
