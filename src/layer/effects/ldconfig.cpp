#include "layer/effects/ldconfig.hpp"

#include <fnmatch.h>

#include <set>

#include "layer/deb/elf_info.hpp"
#include "layer/effects/ld_so_cache.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

std::string strip_root(std::string_view p) {
  while (p.starts_with('/')) p.remove_prefix(1);
  while (p.ends_with('/')) p.remove_suffix(1);
  return std::string(p);
}

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
          std::string p = strip_root(pattern);
          if (!pattern.starts_with('/')) p = std::string(oci::parent_path(path)) + "/" + p;
          for (const auto& f : glob(p)) dirs(f, out, depth + 1);
        }
        continue;
      }
      if (line.starts_with("hwcap")) continue;
      out.push_back("/" + strip_root(line));
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

Result<Effects> ldconfig_effects(const OverlayView& view, std::string_view arch, std::int64_t epoch) {
  Effects fx;
  const auto& rules = view.rules();
  bool added = false;
  for (const FragmentInfo* p : view.packages()) added = added || !p->libraries.empty();
  if (!added) return fx;

  ConfReader conf(view);
  std::vector<std::string> dirs;
  conf.dirs("etc/ld.so.conf", dirs, 0);
  std::string triplet = multiarch_triplet(arch);
  if (!triplet.empty()) {
    dirs.push_back("/lib/" + triplet);
    dirs.push_back("/usr/lib/" + triplet);
  }
  // Canonical directory → the configured name that reaches it first.
  std::vector<std::pair<std::string, std::string>> order;
  std::set<std::string> seen;
  for (const auto& d : dirs) {
    std::string canonical = rules.place(strip_root(d) + "/.", "");
    canonical = std::string(oci::parent_path(canonical));
    if (seen.insert(canonical).second) order.emplace_back(canonical, d);
  }
  std::map<std::string, std::vector<const FragmentLibrary*>> layer_libs;  // by canonical dir
  for (const FragmentInfo* p : view.packages()) {
    for (const auto& lib : p->libraries) layer_libs[std::string(oci::parent_path(lib.path))].push_back(&lib);
  }

  std::vector<LdCacheEntry> entries;
  std::set<std::string> made_links;
  for (const auto& [canonical, configured] : order) {
    auto it = layer_libs.find(canonical);
    if (it == layer_libs.end()) continue;
    std::map<std::string, std::int32_t> sonames;
    for (const FragmentLibrary* lib : it->second) {
      sonames[lib->soname] = lib->flags;
      std::string link = canonical + "/" + lib->soname;
      if (!view.exists(link) && made_links.insert(link).second) {
        fx.files.push_back(effect_symlink(link, std::string(oci::base_name(lib->path)), epoch));
      }
      entries.push_back({lib->soname, configured + "/" + lib->soname, lib->flags, 0});
    }
    // Development links "libx.so → libx.so.N" get their own entry, as ldconfig -p shows.
    for (const FragmentInfo* p : view.packages()) {
      for (const auto& e : p->entries) {
        if (e.type != oci::TarEntryType::kSymlink || oci::parent_path(e.path) != canonical) continue;
        std::string name(oci::base_name(e.path));
        auto s = sonames.find(std::string(oci::base_name(e.link_target)));
        if (name.ends_with(".so") && s != sonames.end()) entries.push_back({name, configured + "/" + name, s->second, 0});
      }
    }
  }
  if (entries.empty()) return fx;

  if (view.base().exists("etc/ld.so.cache")) {
    auto bytes = view.base().read_small_file("etc/ld.so.cache");
    if (!bytes) return fail(bytes.error().context("reading the base's /etc/ld.so.cache"));
    auto base_entries = parse_ld_so_cache(*bytes, "the base's /etc/ld.so.cache");
    if (base_entries) {
      entries.insert(entries.end(), base_entries->begin(), base_entries->end());
    } else {
      fx.notes.push_back(base_entries.error().message() + "; its entries are rebuilt from its libraries");
    }
  }
  if (!view.base().exists("etc/ld.so.cache") || fx.notes.size() > 0) {
    for (const auto& [canonical, configured] : order) {
      auto names = view.base().list(canonical);
      if (!names) continue;
      for (const auto& n : *names) {
        if (!looks_like_library_name(n)) continue;
        auto summary = view.base().summary(canonical + "/" + n);
        if (!summary) continue;
        std::string_view text = *summary;
        std::size_t space = text.find(' ');
        if (space == std::string_view::npos) continue;  // not an ELF library
        auto cache_flags = str::parse_u64(text.substr(0, space));
        std::string_view soname = text.substr(space + 1);
        if (!cache_flags || soname.empty() || !view.base().exists(canonical + "/" + std::string(soname))) continue;
        entries.push_back({std::string(soname), configured + "/" + std::string(soname),
                           static_cast<std::int32_t>(*cache_flags), 0});
      }
    }
  }
  fx.files.push_back(effect_file(rules.place("etc/ld.so.cache", ""), write_ld_so_cache(std::move(entries)), 0644, epoch));
  return fx;
}

}  // namespace strata::layer
