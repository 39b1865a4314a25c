#include "layer/deb/rewrite_rules.hpp"

#include <fnmatch.h>

#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

// id lookups in the base's /etc/passwd or /etc/group ("name:x:id:…").
std::optional<std::uint64_t> lookup_id(const oci::ImageFilesystem& fs, const char* file, std::string_view name) {
  if (auto n = str::parse_u64(name.starts_with('#') ? name.substr(1) : name)) return n;
  auto text = fs.read_small_file(file);
  if (!text) return name == "root" ? std::optional<std::uint64_t>(0) : std::nullopt;
  for (auto line : str::split(*text, '\n')) {
    auto f = str::split(line, ':');
    if (f.size() >= 3 && f[0] == name) return str::parse_u64(f[2]);
  }
  return std::nullopt;
}


}  // namespace

std::vector<PathFilter> parse_path_filters(std::string_view text) {
  std::vector<PathFilter> out;
  for (auto raw : str::split(text, '\n')) {
    auto line = str::trim(raw);
    if (line.empty() || line.starts_with('#')) continue;
    for (auto [key, include] : {std::pair{std::string_view("path-exclude"), false}, {"path-include", true}}) {
      if (!line.starts_with(key)) continue;
      auto rest = str::trim(line.substr(key.size()));
      if (rest.starts_with('=')) rest = str::trim(rest.substr(1));
      if (!rest.empty()) out.push_back({include, std::string(rest)});
    }
  }
  return out;
}

Result<std::vector<Diversion>> parse_diversions(std::string_view text, std::string_view what) {
  auto lines = str::split(text, '\n');
  while (!lines.empty() && lines.back().empty()) lines.pop_back();
  if (lines.size() % 3 != 0) {
    return fail(ErrorCode::kInvalidArgument,
                std::string(what) + ": not a multiple of three lines; the base's dpkg diversions are damaged");
  }
  std::vector<Diversion> out;
  for (std::size_t i = 0; i < lines.size(); i += 3) {
    out.push_back({std::string(str::strip(lines[i], '/')), std::string(str::strip(lines[i + 1], '/')), std::string(lines[i + 2])});
  }
  return out;
}

std::vector<std::string> RewriteRules::capture_patterns() {
  return {"etc/dpkg/dpkg.cfg", "etc/dpkg/dpkg.cfg.d/*", "var/lib/dpkg/diversions", "var/lib/dpkg/statoverride",
          "etc/passwd", "etc/group"};
}

Result<RewriteRules> RewriteRules::from_base(const oci::ImageFilesystem& fs, std::int64_t epoch) {
  RewriteRules r;
  r.fs_ = &fs;
  r.epoch_ = epoch;
  Hasher h;
  h.update("strata rewrite rules 1\n");
  h.update("epoch " + std::to_string(epoch) + "\n");
  std::vector<std::string> cfg_files;
  if (fs.exists("etc/dpkg/dpkg.cfg")) cfg_files.push_back("etc/dpkg/dpkg.cfg");
  if (auto names = fs.list("etc/dpkg/dpkg.cfg.d")) {
    for (const auto& n : *names) cfg_files.push_back("etc/dpkg/dpkg.cfg.d/" + n);  // list() is sorted, as dpkg reads
  }
  for (const auto& f : cfg_files) {
    auto text = fs.read_small_file(f);
    if (!text) continue;  // a directory or an oversize file: no filters in it
    for (auto& pf : parse_path_filters(*text)) {
      h.update(std::string(pf.include ? "include " : "exclude ") + pf.pattern + "\n");
      r.filters_.push_back(std::move(pf));
    }
  }
  if (fs.exists("var/lib/dpkg/diversions")) {
    STRATA_TRY(std::string text, fs.read_small_file("var/lib/dpkg/diversions"));
    STRATA_TRY(auto divs, parse_diversions(text, "/var/lib/dpkg/diversions"));
    for (auto& d : divs) {
      h.update("divert " + d.from + " " + d.to + " " + d.package + "\n");
      r.diversions_[d.from] = std::move(d);
    }
  }
  if (fs.exists("var/lib/dpkg/statoverride")) {
    STRATA_TRY(std::string text, fs.read_small_file("var/lib/dpkg/statoverride"));
    for (auto line : str::split(text, '\n')) {
      auto f = str::split_ws(line);
      if (f.size() != 4) continue;
      auto uid = lookup_id(fs, "etc/passwd", f[0]);
      auto gid = lookup_id(fs, "etc/group", f[1]);
      auto mode = std::strtoul(std::string(f[2]).c_str(), nullptr, 8);
      if (!uid || !gid) {
        r.warnings_.push_back("statoverride for " + std::string(f[3]) + ": unknown user or group " +
                              std::string(f[0]) + ":" + std::string(f[1]) + " in the base; not applied");
        continue;
      }
      StatOverride so{*uid, *gid, static_cast<std::uint32_t>(mode & 07777)};
      std::string path(str::strip(f[3], '/'));
      h.update("override " + path + " " + std::to_string(so.uid) + " " + std::to_string(so.gid) + " " +
               std::to_string(so.mode) + "\n");
      r.overrides_[path] = so;
    }
  }
  // The skeleton that placement depends on: every directory and symlink.
  for (const auto& [path, node] : fs.nodes()) {
    if (node.type == oci::TarEntryType::kDirectory) {
      h.update("d " + path + "\n");
    } else if (node.type == oci::TarEntryType::kSymlink) {
      h.update("l " + path + " " + node.link_target + "\n");
    }
  }
  r.hash_ = h.finish_hex();
  return r;
}

bool RewriteRules::excluded(const std::string& path) const {
  std::string abs = "/" + path;
  bool excluded = false;
  for (const auto& f : filters_) {
    if (::fnmatch(f.pattern.c_str(), abs.c_str(), 0) == 0) excluded = !f.include;
  }
  return excluded;
}

std::string RewriteRules::resolve_dir(const std::string& dir) const {
  if (dir.empty()) return dir;
  if (auto r = fs_->resolve(dir, oci::ImageFilesystem::Follow::kYes)) return *r;
  // Not all of it exists: resolve the parent, keep this component.
  std::string parent = resolve_dir(std::string(oci::parent_path(dir)));
  std::string name(oci::base_name(dir));
  return parent.empty() ? name : parent + "/" + name;
}

std::string RewriteRules::place(const std::string& path, const std::string& package) const {
  std::string p = path;
  if (auto d = diversions_.find(p); d != diversions_.end() && d->second.package != package) p = d->second.to;
  std::string parent = resolve_dir(std::string(oci::parent_path(p)));
  std::string name(oci::base_name(p));
  return parent.empty() ? name : parent + "/" + name;
}

bool RewriteRules::base_has_directory(const std::string& placed) const {
  auto node = fs_->lookup(placed, oci::ImageFilesystem::Follow::kYes);
  return node && (*node)->type == oci::TarEntryType::kDirectory;
}

const StatOverride* RewriteRules::stat_override(const std::string& placed) const {
  auto it = overrides_.find(placed);
  return it == overrides_.end() ? nullptr : &it->second;
}

}  // namespace strata::layer
