// Node lockfile readers. package-lock.json is parsed with nlohmann's SAX
// interface straight from the file, so a 50 MB lock costs a few frames of
// memory, not a DOM; pnpm-lock.yaml, yarn.lock and bun.lock are read line by
// line because they are generated with a fixed layout and a YAML/JSONC DOM of
// a huge lockfile is exactly the cost we must not pay.
#include <cstdio>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "contract/scan/node_scanner.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

using nlohmann::json;

void lock_floor(ScanContext& ctx, const std::string& lockfile, const std::string& rel,
                const std::string& field, const std::string& value) {
  const KbLockFloor* f = ctx.kb().lock_floor(lockfile);
  if (!f) return;
  auto it = f->versions.find(value);
  if (it == f->versions.end()) {
    ctx.note(rel, field + " " + str::quote(value) + " is not in runtime_aliases.yaml; no tool floor implied");
    return;
  }
  ctx.constraint(f->tool, ConstraintKind::kSupport, {rel, field, value}, parse_npm_range(it->second),
                 "lockfile format implies " + f->tool + " " + it->second);
}

// The package name in a package-lock "packages" key: the part after the last
// "node_modules/" ("node_modules/a/node_modules/@s/b" → "@s/b").
std::string name_from_lock_path(std::string_view key) {
  auto pos = key.rfind("node_modules/");
  if (pos == std::string_view::npos) return {};
  return std::string(key.substr(pos + 13));
}

class PackageLockSax : public json::json_sax_t {
 public:
  PackageLockSax(ScanContext& ctx, std::string rel) : ctx_(ctx), rel_(std::move(rel)) {}

  bool null() override { return true; }
  bool boolean(bool v) override {
    if (in_entry() && frames_.back().key == "hasInstallScript") cur_.install = v;
    if (in_entry() && frames_.back().key == "optional") cur_.optional = v;
    return true;
  }
  bool number_integer(number_integer_t v) override { return number(std::to_string(v)); }
  bool number_unsigned(number_unsigned_t v) override { return number(std::to_string(v)); }
  bool number_float(number_float_t, const string_t& s) override { return number(s); }
  bool string(string_t& v) override {
    if (in_entry()) {
      const std::string& k = frames_.back().key;
      if (k == "version") cur_.version = v;
      else if (k == "resolved") cur_.resolved = v;
      else if (k == "name") cur_.name = v;
    }
    return true;
  }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    if (in_entry_container()) {
      cur_ = Entry{};
      cur_.key = frames_.back().key;
      entry_depth_ = frames_.size() + 1;
    }
    frames_.push_back({});
    return true;
  }
  bool key(string_t& k) override {
    frames_.back().key = k;
    return true;
  }
  bool end_object() override {
    if (entry_depth_ == frames_.size()) {
      flush();
      entry_depth_ = 0;
    }
    frames_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    frames_.push_back({});
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return true;
  }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& e) override {
    ctx_.warn(rel_, "malformed JSON at byte " + std::to_string(pos) + ", read up to there: " + e.what());
    return false;
  }

  std::size_t entries() const { return entries_; }

 private:
  struct Frame {
    std::string key;
  };
  struct Entry {
    std::string key, name, version, resolved;
    bool install = false;
    bool optional = false;
  };

  bool number(const std::string& v) {
    if (frames_.size() == 1 && frames_[0].key == "lockfileVersion") {
      lock_version_ = v;
      lock_floor(ctx_, "package-lock", rel_, "lockfileVersion", v);
    }
    return true;
  }
  // v2/v3: {"packages": {"<path>": {…}}}; v1: {"dependencies": {"<name>":
  // {…, "dependencies": {…}}}} nested without bound.
  bool in_entry_container() const {
    if (frames_.size() == 2 && frames_[0].key == "packages") return true;
    if (lock_version_ != "1" && !lock_version_.empty()) return false;
    if (frames_.size() < 2 || frames_[0].key != "dependencies") return false;
    // Every odd frame must be a "dependencies" key inside an entry.
    return frames_.size() % 2 == 0 && frames_[frames_.size() - 2].key == "dependencies";
  }
  bool in_entry() const { return entry_depth_ != 0 && frames_.size() == entry_depth_; }

  void flush() {
    ++entries_;
    bool v1 = frames_[0].key == "dependencies";
    // "" is the root project and "packages/api" a workspace folder: the
    // repository's own code, read from its package.json, not a dependency.
    if (!v1 && cur_.key.find("node_modules/") == std::string::npos) return;
    std::string name = v1 ? cur_.key : (cur_.name.empty() ? name_from_lock_path(cur_.key) : cur_.name);
    if (name.empty()) return;
    std::string field = v1 ? "dependencies." + cur_.key : "packages[\"" + cur_.key + "\"]";
    if (!cur_.resolved.empty())
      ctx_.egress_url(cur_.resolved, EgressOrigin::kLockfile, "package tarballs (resolved URLs)",
                      {rel_, field + ".resolved", cur_.resolved});
    record_locked_package(ctx_, name, cur_.version,
                          {rel_, field + (cur_.install ? ".hasInstallScript" : ".version"),
                           cur_.install ? "true" : cur_.version},
                          cur_.install, cur_.optional);
  }

  ScanContext& ctx_;
  std::string rel_;
  std::vector<Frame> frames_;
  std::size_t entry_depth_ = 0;
  Entry cur_;
  std::string lock_version_;
  std::size_t entries_ = 0;
};

std::size_t indent_of(std::string_view line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ') ++i;
  return i;
}

// "name@1.2.3" / "@s/n@1.2.3(peer@1)" / "/name@1.2.3" / "/name/1.2.3_peer".
std::pair<std::string, std::string> pnpm_key(std::string_view key) {
  std::string k = str::unquote(key);
  if (k.starts_with('/')) k.erase(0, 1);
  if (auto paren = k.find('('); paren != std::string::npos) k.erase(paren);
  auto at = k.rfind('@');
  if (at != std::string::npos && at > 0) return {k.substr(0, at), k.substr(at + 1)};
  // lockfile v5: "name/1.2.3" or "@s/name/1.2.3_peer"
  auto slash = k.rfind('/');
  if (slash == std::string::npos) return {k, ""};
  std::string ver = k.substr(slash + 1);
  if (auto us = ver.find('_'); us != std::string::npos) ver.erase(us);
  return {k.substr(0, slash), ver};
}

template <class F>
bool for_each_line(ScanContext& ctx, const std::string& rel, F&& f) {
  auto path = ctx.fs().open_path(rel, ctx.fs().limits().max_lockfile_bytes);
  if (!path) return false;
  std::ifstream in(*path, std::ios::binary);
  if (!in) {
    ctx.warn(rel, "cannot open");
    return false;
  }
  std::string line;
  std::size_t n = 0;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (n == 0 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);
    if (line.find('\0') != std::string::npos) {
      ctx.note(rel, "binary content at line " + std::to_string(n + 1) + "; skipped the rest");
      return true;
    }
    f(line, ++n);
  }
  return true;
}

}  // namespace

void record_locked_package(ScanContext& ctx, const std::string& name, std::string_view version,
                           const Evidence& ev, bool install_script, bool optional) {
  // A Linux platform package ("@esbuild/linux-x64") carries another
  // package's prebuilt binary; kept so that package's install script is not
  // read as a compile.
  if (auto at = name.find("linux"); at != std::string::npos && at > 0 && (name[at - 1] == '-' || name[at - 1] == '/'))
    ctx.npm_platform_packages.try_emplace(name, ev.file);
  bool known = ctx.kb().package("npm", name) != nullptr;
  if (!known && !install_script && !ctx.packages().count({"npm", name})) return;
  PackageSignals& s = ctx.package("npm", name);
  s.in_lock = true;
  (optional ? s.optional_entry : s.required_entry) = true;
  if (auto v = parse_version(version); v && (!s.locked || *v < *s.locked)) s.locked = v;
  if (install_script) s.install_script = true;
  bool seen = false;
  for (const auto& e : s.evidence) seen = seen || e.file == ev.file;
  if (!seen || install_script) s.evidence.push_back(ev);
}

void scan_package_lock(ScanContext& ctx, const std::string& rel) {
  auto path = ctx.fs().open_path(rel, ctx.fs().limits().max_lockfile_bytes);
  if (!path) return;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> f(std::fopen(path->c_str(), "rb"), &std::fclose);
  if (!f) {
    ctx.warn(rel, "cannot open");
    return;
  }
  // A bigger stdio buffer keeps the per-character reads of the SAX lexer cheap.
  std::setvbuf(f.get(), nullptr, _IOFBF, 1 << 20);
  PackageLockSax sax(ctx, rel);
  try {
    json::sax_parse(f.get(), &sax);
  } catch (const std::exception& e) {
    ctx.warn(rel, std::string("unreadable: ") + e.what());
  }
}

void scan_pnpm_lock(ScanContext& ctx, const std::string& rel) {
  std::string section, name, version;
  bool install = false;
  std::string tarball;
  auto flush = [&] {
    if (name.empty()) return;
    std::string field = section + "[\"" + name + "@" + version + "\"]";
    if (!tarball.empty())
      ctx.egress_url(tarball, EgressOrigin::kLockfile, "package tarballs (resolution.tarball)",
                     {rel, field + ".resolution.tarball", tarball});
    record_locked_package(ctx, name, version, {rel, field + (install ? ".requiresBuild" : ""), install ? "true" : version},
                          install);
    name.clear();
    install = false;
    tarball.clear();
  };
  bool ok = for_each_line(ctx, rel, [&](const std::string& line, std::size_t) {
    if (line.empty() || line.front() == '#') return;
    std::size_t ind = indent_of(line);
    std::string_view body = std::string_view(line).substr(ind);
    if (ind == 0) {
      flush();
      auto colon = body.find(':');
      section = std::string(body.substr(0, colon));
      if (section == "lockfileVersion") lock_floor(ctx, "pnpm-lock", rel, "lockfileVersion", str::unquote(body.substr(colon + 1)));
      return;
    }
    if (section != "packages" && section != "snapshots") return;
    if (ind == 2 && body.ends_with(':')) {
      flush();
      auto [n, v] = pnpm_key(body.substr(0, body.size() - 1));
      name = n;
      version = v;
    } else if (ind == 4 && body.starts_with("requiresBuild: true")) {
      install = true;
    } else if (ind == 4 && body.starts_with("resolution:")) {
      if (auto t = body.find("tarball: "); t != std::string_view::npos) {
        std::string_view rest = body.substr(t + 9);
        tarball = str::unquote(rest.substr(0, rest.find_first_of(",}")));
      }
    }
  });
  if (ok) flush();
}

void scan_yarn_lock(ScanContext& ctx, const std::string& rel) {
  bool berry = false, saw_v1_header = false;
  std::string name, version, resolved;
  std::string metadata_version;
  bool in_metadata = false;
  auto flush = [&] {
    if (name.empty()) return;
    std::string field = "\"" + name + "\"";
    if (!resolved.empty())
      ctx.egress_url(resolved, EgressOrigin::kLockfile, "package tarballs (resolved URLs)", {rel, field + ".resolved", resolved});
    record_locked_package(ctx, name, version, {rel, field + ".version", version}, false);
    name.clear();
    version.clear();
    resolved.clear();
  };
  bool ok = for_each_line(ctx, rel, [&](const std::string& line, std::size_t) {
    if (line.empty()) return;
    if (line.front() == '#') {
      if (line.find("yarn lockfile v1") != std::string::npos) saw_v1_header = true;
      return;
    }
    std::size_t ind = indent_of(line);
    std::string_view body = std::string_view(line).substr(ind);
    if (ind == 0) {
      flush();
      in_metadata = body.starts_with("__metadata:");
      if (in_metadata) {
        berry = true;
        return;
      }
      // "\"@s/a@^1\", \"@s/a@npm:^1.2\":" → "@s/a"
      std::string_view spec = body;
      if (spec.ends_with(':')) spec.remove_suffix(1);
      if (auto comma = spec.find(", "); comma != std::string_view::npos) spec = spec.substr(0, comma);
      std::string first = str::unquote(spec);
      auto at = first.find('@', 1);
      name = at == std::string::npos ? first : first.substr(0, at);
      return;
    }
    if (in_metadata) {
      if (body.starts_with("version:")) metadata_version = str::unquote(body.substr(8));
      return;
    }
    if (ind != 2) return;
    if (body.starts_with("version ")) version = str::unquote(body.substr(8));
    else if (body.starts_with("version:")) version = str::unquote(body.substr(8));
    else if (body.starts_with("resolved ")) {
      resolved = str::unquote(body.substr(9));
      if (auto hash = resolved.find('#'); hash != std::string::npos) resolved.erase(hash);
    }
  });
  if (!ok) return;
  flush();
  if (berry) {
    const KbLockFloor* f = ctx.kb().lock_floor("yarn-berry");
    auto mv = str::parse_u64(metadata_version);
    if (f && mv) {
      for (const auto& [min, range] : f->thresholds)
        if (*mv >= static_cast<std::uint64_t>(min)) {
          ctx.constraint(f->tool, ConstraintKind::kSupport, {rel, "__metadata.version", metadata_version}, parse_npm_range(range),
                         "lockfile format implies yarn " + range);
          break;
        }
    } else {
      ctx.warn(rel, "yarn berry lockfile without a readable __metadata.version");
    }
  } else if (const KbLockFloor* f = ctx.kb().lock_floor("yarn-classic")) {
    ctx.constraint(f->tool, ConstraintKind::kSupport, {rel, saw_v1_header ? "header" : "format", saw_v1_header ? "yarn lockfile v1" : "no __metadata"},
                   parse_npm_range(f->range), "classic yarn lockfile implies yarn 1");
  }
}

void scan_bun_lock(ScanContext& ctx, const std::string& rel) {
  bool in_packages = false, in_trusted = false;
  for_each_line(ctx, rel, [&](const std::string& line, std::size_t) {
    std::size_t ind = indent_of(line);
    std::string_view body = std::string_view(line).substr(ind);
    if (ind == 2) {
      in_packages = body.starts_with("\"packages\":");
      in_trusted = body.starts_with("\"trustedDependencies\":");
      return;
    }
    if (in_trusted && ind == 4 && body.starts_with('"')) {
      std::string n = str::unquote(body.substr(0, body.find('"', 1) + 1));
      PackageSignals& s = ctx.package("npm", n);
      s.build_allowed = true;
      s.evidence.push_back({rel, "trustedDependencies", n});
      return;
    }
    if (!in_packages || ind != 4) return;
    // "key": ["name@1.2.3", "https://registry/…" or "", {…}, "sha512-…"],
    auto open = body.find('[');
    if (open == std::string_view::npos) return;
    std::vector<std::string> strs;
    std::size_t i = open + 1;
    while (strs.size() < 2 && i < body.size()) {
      auto q = body.find('"', i);
      if (q == std::string_view::npos) break;
      auto e = body.find('"', q + 1);
      if (e == std::string_view::npos) break;
      strs.emplace_back(body.substr(q + 1, e - q - 1));
      i = e + 1;
      while (i < body.size() && (body[i] == ' ' || body[i] == ',')) ++i;
      if (i < body.size() && body[i] != '"') break;
    }
    if (strs.empty()) return;
    auto at = strs[0].rfind('@');
    if (at == std::string::npos || at == 0) return;
    std::string name = strs[0].substr(0, at), version = strs[0].substr(at + 1);
    if (version.starts_with("npm:")) version.erase(0, 4);
    if (strs.size() > 1 && !strs[1].empty())
      ctx.egress_url(strs[1], EgressOrigin::kLockfile, "package registry (bun.lock)", {rel, "packages[\"" + name + "\"]", strs[1]});
    record_locked_package(ctx, name, version, {rel, "packages[\"" + name + "\"]", strs[0]}, false);
  });
}

}  // namespace strata::contract
