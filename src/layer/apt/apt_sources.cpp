#include "layer/apt/apt_sources.hpp"

#include <algorithm>

#include "layer/debian/deb822.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace stdfs = std::filesystem;

namespace {

Error bad(std::string_view where, std::string_view why) {
  return Error(ErrorCode::kInvalidArgument, std::string(where) + ": " + std::string(why));
}

Result<bool> yes_no(std::string_view v, std::string_view where, std::string_view field) {
  std::string l = str::lower(str::trim(v));
  if (l == "yes" || l == "true" || l == "1") return true;
  if (l == "no" || l == "false" || l == "0") return false;
  return std::unexpected(bad(where, std::string(field) + " must be yes or no, found " + str::quote(v, 40)));
}

Result<ByHash> by_hash(std::string_view v, std::string_view where) {
  std::string l = str::lower(str::trim(v));
  if (l == "force") return ByHash::kForce;
  STRATA_TRY(bool b, yes_no(v, where, "By-Hash"));
  return b ? ByHash::kYes : ByHash::kNo;
}

std::string clean_uri(std::string_view uri) {
  std::string u(uri);
  while (!u.empty() && u.back() == '/') u.pop_back();
  return u;
}

Result<void> check_entry(const AptSource& s) {
  if (s.uri.rfind("http://", 0) != 0 && s.uri.rfind("https://", 0) != 0 && s.uri.rfind("file:", 0) != 0)
    return std::unexpected(bad(s.where, "unsupported URI " + str::quote(s.uri, 100) + " (use http, https or file)"));
  if (s.suite.empty()) return std::unexpected(bad(s.where, "no suite"));
  if (s.suite.back() == '/')
    return std::unexpected(bad(s.where, "flat repositories ('" + s.suite + "') are not supported; use a dists/ layout"));
  if (s.components.empty()) return std::unexpected(bad(s.where, "no components"));
  return {};
}

void split_signed_by(std::string_view value, AptSource& s) {
  if (value.find("BEGIN PGP PUBLIC KEY BLOCK") != std::string_view::npos) {
    s.signed_by_key = std::string(value);
    return;
  }
  for (auto part : str::split_ws(value)) {
    for (auto item : str::split(part, ',')) {
      if (item.empty()) continue;
      if (item.front() == '/') s.signed_by_paths.emplace_back(item);
      else s.signed_by_fingerprints.emplace_back(item);
    }
  }
}

}  // namespace

Result<std::vector<AptSource>> parse_one_line_sources(std::string_view text, std::string_view origin) {
  std::vector<AptSource> out;
  std::size_t line_no = 0;
  for (std::string_view raw : str::split(text, '\n')) {
    ++line_no;
    std::string where = std::string(origin) + ":" + std::to_string(line_no);
    std::string_view line = raw.substr(0, raw.find('#'));
    line = str::trim(line);
    if (line.empty()) continue;
    AptSource s;
    s.where = where;
    std::string_view type = line.substr(0, line.find_first_of(" \t"));
    line = str::trim(line.substr(type.size()));
    if (type != "deb" && type != "deb-src") return std::unexpected(bad(where, "unknown type " + str::quote(type, 20)));
    if (!line.empty() && line.front() == '[') {
      std::size_t close = line.find(']');
      if (close == std::string_view::npos) return std::unexpected(bad(where, "unterminated '[' options"));
      for (auto opt : str::split_ws(line.substr(1, close - 1))) {
        std::size_t eq = opt.find('=');
        if (eq == std::string_view::npos) return std::unexpected(bad(where, "option without '=': " + std::string(opt)));
        std::string key = str::lower(opt.substr(0, eq));
        std::string_view val = opt.substr(eq + 1);
        if (key == "arch") {
          for (auto a : str::split(val, ',')) s.architectures.emplace_back(a);
        } else if (key == "signed-by") {
          split_signed_by(val, s);
        } else if (key == "trusted") {
          STRATA_TRY(s.trusted, yes_no(val, where, "trusted"));
        } else if (key == "check-valid-until") {
          STRATA_TRY(s.check_valid_until, yes_no(val, where, "check-valid-until"));
        } else if (key == "by-hash") {
          STRATA_TRY(s.by_hash, by_hash(val, where));
        }
        // Other options (lang, target, pdiffs…) do not affect binary indexes.
      }
      line = str::trim(line.substr(close + 1));
    }
    auto w = str::split_ws(line);
    if (w.size() < 2) return std::unexpected(bad(where, "expected 'URI SUITE [COMPONENT…]'"));
    s.uri = clean_uri(w[0]);
    s.suite = std::string(w[1]);
    for (std::size_t i = 2; i < w.size(); ++i) s.components.emplace_back(w[i]);
    STRATA_TRY_VOID(check_entry(s));
    if (type == "deb") out.push_back(std::move(s));
  }
  return out;
}

Result<std::vector<AptSource>> parse_deb822_sources(std::string_view text, std::string_view origin) {
  Deb822Options opts;
  opts.allow_comments = true;
  STRATA_TRY(auto stanzas, parse_deb822(text, origin, opts));
  std::vector<AptSource> out;
  for (const auto& st : stanzas) {
    std::string where = std::string(origin) + ":" + std::to_string(st.line);
    if (auto en = st.get("Enabled")) {
      STRATA_TRY(bool enabled, yes_no(*en, where, "Enabled"));
      if (!enabled) continue;
    }
    auto types = str::split_ws(st.get("Types").value_or(""));
    if (types.empty()) return std::unexpected(bad(where, "no Types field"));
    for (auto t : types)
      if (t != "deb" && t != "deb-src") return std::unexpected(bad(where, "unknown type " + str::quote(t, 20)));
    if (std::find(types.begin(), types.end(), "deb") == types.end()) continue;
    AptSource base;
    base.where = where;
    for (auto a : str::split_ws(st.get("Architectures").value_or(""))) base.architectures.emplace_back(a);
    for (auto c : str::split_ws(st.get("Components").value_or(""))) base.components.emplace_back(c);
    if (auto sb = st.get("Signed-By")) split_signed_by(*sb, base);
    if (auto v = st.get("Trusted")) {
      STRATA_TRY(base.trusted, yes_no(*v, where, "Trusted"));
    }
    if (auto v = st.get("Check-Valid-Until")) {
      STRATA_TRY(base.check_valid_until, yes_no(*v, where, "Check-Valid-Until"));
    }
    if (auto v = st.get("By-Hash")) {
      STRATA_TRY(base.by_hash, by_hash(*v, where));
    }
    auto uris = str::split_ws(st.get("URIs").value_or(""));
    auto suites = str::split_ws(st.get("Suites").value_or(""));
    if (uris.empty()) return std::unexpected(bad(where, "no URIs field"));
    if (suites.empty()) return std::unexpected(bad(where, "no Suites field"));
    for (auto uri : uris) {
      for (auto suite : suites) {
        AptSource s = base;
        s.uri = clean_uri(uri);
        s.suite = std::string(suite);
        STRATA_TRY_VOID(check_entry(s));
        out.push_back(std::move(s));
      }
    }
  }
  return out;
}

Result<std::vector<AptSource>> load_sources_file(const stdfs::path& path) {
  STRATA_TRY(std::string text, fs::read_file(path, 16 << 20));
  if (path.extension() == ".sources") return parse_deb822_sources(text, path.string());
  if (path.extension() == ".list") return parse_one_line_sources(text, path.string());
  // Any other name (a pipe, "my-sources"): the first meaningful line decides.
  for (auto line : str::split(text, '\n')) {
    line = str::trim(line);
    if (line.empty() || line.front() == '#') continue;
    if (line.starts_with("deb ") || line.starts_with("deb-src ") || line.starts_with("deb\t")) break;
    return parse_deb822_sources(text, path.string());
  }
  return parse_one_line_sources(text, path.string());
}

Result<std::vector<AptSource>> load_host_sources(const stdfs::path& apt_dir) {
  std::vector<AptSource> out;
  std::error_code ec;
  if (stdfs::exists(apt_dir / "sources.list", ec)) {
    STRATA_TRY(auto v, load_sources_file(apt_dir / "sources.list"));
    out.insert(out.end(), v.begin(), v.end());
  }
  std::vector<stdfs::path> files;
  for (const auto& e : stdfs::directory_iterator(apt_dir / "sources.list.d", ec)) {
    auto ext = e.path().extension();
    if (ext == ".list" || ext == ".sources") files.push_back(e.path());
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    STRATA_TRY(auto v, load_sources_file(f));
    out.insert(out.end(), v.begin(), v.end());
  }
  if (out.empty()) {
    return fail(ErrorCode::kNotFound, "no apt sources found in " + apt_dir.string() +
                                          "/sources.list or sources.list.d/; pass --sources FILE");
  }
  return out;
}

Result<TrustedKeys> trusted_keys_for(const AptSource& s, const stdfs::path& apt_dir) {
  TrustedKeys k;
  for (const auto& p : s.signed_by_paths) k.keyrings.emplace_back(p);
  if (!s.signed_by_key.empty()) k.armored_keys.push_back(s.signed_by_key);
  k.fingerprints = s.signed_by_fingerprints;
  if (k.keyrings.empty() && k.armored_keys.empty()) {
    std::error_code ec;
    std::vector<stdfs::path> files;
    for (const auto& e : stdfs::directory_iterator(apt_dir / "trusted.gpg.d", ec)) {
      auto ext = e.path().extension();
      if (ext == ".gpg" || ext == ".asc") files.push_back(e.path());
    }
    if (stdfs::exists(apt_dir / "trusted.gpg", ec)) files.push_back(apt_dir / "trusted.gpg");
    std::sort(files.begin(), files.end());
    k.keyrings = files;
  }
  return k;
}

std::vector<std::string> source_key_identities(const AptSource& s) {
  std::vector<std::string> out = s.signed_by_fingerprints;
  for (const auto& p : s.signed_by_paths) {
    auto bytes = fs::read_file(p, std::uint64_t{64} << 20);
    out.push_back(bytes ? "sha256:" + sha256_hex(*bytes) : "file:" + p);
  }
  if (!s.signed_by_key.empty()) out.push_back("sha256:" + sha256_hex(s.signed_by_key));
  if (s.trusted) out.push_back("trusted=yes");
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace strata::layer
