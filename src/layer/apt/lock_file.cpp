#include "layer/apt/lock_file.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <ctime>
#include <tuple>

#include "layer/debian/relation.hpp"
#include "layer/apt/release.hpp"
#include "layer/debian/version.hpp"
#include "oci/yaml_load.hpp"
#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::layer {

namespace {

bool is_sha256(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

void key_str(YAML::Emitter& e, const char* k, const std::string& v) {
  e << YAML::Key << k << YAML::Value << YAML::DoubleQuoted << v;
}

}  // namespace

std::string write_lock(Lock lock) {
  std::sort(lock.packages.begin(), lock.packages.end(), [](const LockPackage& a, const LockPackage& b) {
    return std::tie(a.name, a.architecture, a.version) < std::tie(b.name, b.architecture, b.version);
  });
  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "format" << YAML::Value << Lock::kFormat;
  key_str(e, "platform", lock.platform);
  e << YAML::Key << "base" << YAML::Value << YAML::BeginMap;
  key_str(e, "reference", lock.base_reference);
  key_str(e, "digest", lock.base_digest);
  e << YAML::EndMap;
  e << YAML::Key << "request" << YAML::Value << YAML::BeginSeq;
  for (const auto& r : lock.request) e << YAML::DoubleQuoted << r;
  e << YAML::EndSeq;
  e << YAML::Key << "sources" << YAML::Value << YAML::BeginSeq;
  for (const auto& s : lock.sources) {
    e << YAML::BeginMap;
    key_str(e, "uri", s.uri);
    key_str(e, "suite", s.suite);
    e << YAML::Key << "components" << YAML::Value << YAML::Flow << YAML::BeginSeq;
    for (const auto& c : s.components) e << YAML::DoubleQuoted << c;
    e << YAML::EndSeq;
    key_str(e, "release-sha256", s.release_sha256);
    key_str(e, "date", str::rfc3339(s.date));
    key_str(e, "fingerprint", s.fingerprint);
    if (s.keys) {
      e << YAML::Key << "keys" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (const auto& k : *s.keys) e << YAML::DoubleQuoted << k;
      e << YAML::EndSeq;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::Key << "packages" << YAML::Value << YAML::BeginSeq;
  for (const auto& p : lock.packages) {
    e << YAML::BeginMap;
    key_str(e, "name", p.name);
    key_str(e, "version", p.version);
    key_str(e, "architecture", p.architecture);
    key_str(e, "filename", p.filename);
    e << YAML::Key << "size" << YAML::Value << p.size;
    key_str(e, "sha256", p.sha256);
    e << YAML::Key << "source" << YAML::Value << p.source;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  e << YAML::EndMap;
  return std::string(e.c_str()) + "\n";
}

namespace {

int64_t parse_rfc3339(std::string_view s, bool& ok) {
  // YYYY-MM-DDTHH:MM:SSZ
  ok = false;
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != 'Z') return 0;
  auto num = [&](std::size_t at, std::size_t len) { return str::parse_u64(s.substr(at, len)); };
  auto y = num(0, 4), mo = num(5, 2), d = num(8, 2), h = num(11, 2), mi = num(14, 2), se = num(17, 2);
  if (!y || !mo || !d || !h || !mi || !se || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 || *mi > 59 || *se > 60)
    return 0;
  std::tm tm{};
  tm.tm_year = static_cast<int>(*y) - 1900;
  tm.tm_mon = static_cast<int>(*mo) - 1;
  tm.tm_mday = static_cast<int>(*d);
  tm.tm_hour = static_cast<int>(*h);
  tm.tm_min = static_cast<int>(*mi);
  tm.tm_sec = static_cast<int>(*se);
  ok = true;
  return ::timegm(&tm);
}

}  // namespace

Result<Lock> parse_lock(std::string_view text, std::string_view what) {
  STRATA_TRY(YAML::Node root, oci::load_yaml(text, what));
  auto bad = [&](const std::string& where, const std::string& why) {
    return fail(ErrorCode::kInvalidArgument, std::string(what) + ": " + where + ": " + why +
                                                 " (regenerate the lock with strata resolve --lock-out)");
  };
  try {
    if (!root.IsMap()) return bad("top level", "expected a mapping");
    if (!root["format"] || root["format"].as<int>() != Lock::kFormat)
      return bad("format", "unsupported lock format (this strata reads format " + std::to_string(Lock::kFormat) + ")");
    auto str_of = [&](const YAML::Node& n, const std::string& where, bool required = true) -> Result<std::string> {
      if (!n) {
        if (!required) return std::string();
        return bad(where, "missing");
      }
      if (!n.IsScalar()) return bad(where, "expected a string");
      return n.as<std::string>();
    };
    Lock lock;
    STRATA_TRY(lock.platform, str_of(root["platform"], "platform"));
    if (root["base"]) {
      STRATA_TRY(lock.base_reference, str_of(root["base"]["reference"], "base.reference", false));
      STRATA_TRY(lock.base_digest, str_of(root["base"]["digest"], "base.digest", false));
    }
    if (!root["request"] || !root["request"].IsSequence()) return bad("request", "expected a list");
    for (const auto& r : root["request"]) lock.request.push_back(r.as<std::string>());
    if (!root["sources"] || !root["sources"].IsSequence()) return bad("sources", "expected a list");
    std::size_t i = 0;
    for (const auto& s : root["sources"]) {
      std::string where = "sources[" + std::to_string(i++) + "]";
      LockSource ls;
      STRATA_TRY(ls.uri, str_of(s["uri"], where + ".uri"));
      if (ls.uri.rfind("http://", 0) != 0 && ls.uri.rfind("https://", 0) != 0 && ls.uri.rfind("file:", 0) != 0)
        return bad(where + ".uri", "not an http, https or file URI");
      STRATA_TRY(ls.suite, str_of(s["suite"], where + ".suite"));
      if (!s["components"] || !s["components"].IsSequence()) return bad(where + ".components", "expected a list");
      for (const auto& c : s["components"]) ls.components.push_back(c.as<std::string>());
      STRATA_TRY(ls.release_sha256, str_of(s["release-sha256"], where + ".release-sha256"));
      if (!is_sha256(ls.release_sha256)) return bad(where + ".release-sha256", "not a lowercase SHA-256 hex digest");
      STRATA_TRY(std::string date, str_of(s["date"], where + ".date"));
      bool ok = false;
      ls.date = parse_rfc3339(date, ok);
      if (!ok) return bad(where + ".date", "expected YYYY-MM-DDTHH:MM:SSZ");
      STRATA_TRY(ls.fingerprint, str_of(s["fingerprint"], where + ".fingerprint", false));
      if (s["keys"]) {
        if (!s["keys"].IsSequence()) return bad(where + ".keys", "expected a list");
        ls.keys.emplace();
        for (const auto& k : s["keys"]) {
          if (!k.IsScalar()) return bad(where + ".keys", "expected a list of strings");
          ls.keys->push_back(k.as<std::string>());
        }
      }
      lock.sources.push_back(std::move(ls));
    }
    if (!root["packages"] || !root["packages"].IsSequence()) return bad("packages", "expected a list");
    i = 0;
    for (const auto& p : root["packages"]) {
      std::string where = "packages[" + std::to_string(i++) + "]";
      LockPackage lp;
      STRATA_TRY(lp.name, str_of(p["name"], where + ".name"));
      if (!valid_package_name(lp.name)) return bad(where + ".name", "invalid package name");
      where += " (" + lp.name + ")";
      STRATA_TRY(lp.version, str_of(p["version"], where + ".version"));
      STRATA_TRY_VOID(validate_version(lp.version, std::string(what) + ": " + where));
      STRATA_TRY(lp.architecture, str_of(p["architecture"], where + ".architecture"));
      STRATA_TRY(lp.filename, str_of(p["filename"], where + ".filename"));
      if (lp.filename.empty() || lp.filename.front() == '/' || lp.filename.find("..") != std::string::npos)
        return bad(where + ".filename", "unsafe path");
      if (!p["size"] || !p["size"].IsScalar() || !str::parse_u64(p["size"].as<std::string>()))
        return bad(where + ".size", "expected a non-negative integer");
      lp.size = *str::parse_u64(p["size"].as<std::string>());
      STRATA_TRY(lp.sha256, str_of(p["sha256"], where + ".sha256"));
      if (!is_sha256(lp.sha256)) return bad(where + ".sha256", "not a lowercase SHA-256 hex digest");
      auto src = p["source"] ? str::parse_u64(p["source"].as<std::string>()) : std::nullopt;
      if (!src || *src >= lock.sources.size()) return bad(where + ".source", "not an index into sources");
      lp.source = *src;
      lock.packages.push_back(std::move(lp));
    }
    return lock;
  } catch (const YAML::Exception& ex) {
    return fail(ErrorCode::kInvalidArgument, std::string(what) + ": malformed lock: " + ex.what());
  }
}

std::int64_t archive_date(const Lock& lock) {
  std::int64_t date = 0;
  for (const auto& s : lock.sources) date = std::max(date, s.date);
  return date;
}

Result<Lock> read_lock_file(const std::filesystem::path& path) {
  STRATA_TRY(std::string text, fs::read_file(path, kMaxLockBytes));
  return parse_lock(text, path.string());
}

}  // namespace strata::layer
