#include "contract/scan/php_scanner.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "contract/scan/build_env_scanner.hpp"
#include "contract/scan/xml_file.hpp"
#include "oci/tar_entry.hpp"
#include "oci/yaml_load.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

using nlohmann::json;

// "ext-gd" → "gd", "ext-Zend-OPcache" → "zend-opcache"; "" for anything else.
std::string extension_of(std::string_view key) {
  if (!key.starts_with("ext-") || key.size() == 4) return {};
  return str::lower(key.substr(4));
}

// A Dockerfile argument of docker-php-ext-install / pecl install that names
// an extension: "gd", "pdo_mysql", "redis-6.0.2", "imagick-3.7.0" → the name.
std::string extension_word(std::string_view w) {
  if (w.empty() || w.front() == '-' || w.front() == '$' || w.front() == '/') return {};
  std::string_view name = w;
  if (auto dash = name.find('-'); dash != std::string_view::npos && dash + 1 < name.size() &&
                                  std::isdigit(static_cast<unsigned char>(name[dash + 1])))
    name = name.substr(0, dash);
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return {};
  return str::lower(name);
}

// setup-php's names for what the extension table knows under another:
// "mysql" is mysqli, pdo_mysql and mysqlnd, which php8.2-mysql ships;
// "sqlite" is sqlite3.
std::string setup_php_name(std::string name) {
  return name == "mysql" ? "mysqli" : name == "sqlite" ? "sqlite3" : name;
}

std::string text_of(const json& j) {
  if (j.is_string()) return j.get<std::string>();
  if (j.is_number() || j.is_boolean()) return j.dump();
  return {};
}

class PhpScanner {
 public:
  explicit PhpScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto& fs = ctx_.fs();
    // vendor/ holds the installed packages' own composer.json: dependencies,
    // whose needs the lock already states.
    auto manifests = fs.files_named("composer.json");
    auto locks = fs.files_named("composer.lock");
    for (auto* files : {&manifests, &locks})
      std::erase_if(*files, [](const std::string& f) {
        return f.starts_with("vendor/") || f.find("/vendor/") != std::string::npos;
      });
    if (manifests.empty() && locks.empty()) return;
    ctx_.ecosystem("php");
    std::vector<std::string> projects = manifests;
    projects.insert(projects.end(), locks.begin(), locks.end());
    ctx_.needs_tool("php", projects, "a PHP project (Composer)");
    ctx_.needs_tool("composer", projects, "installs the dependencies composer.json declares");
    for (const auto& f : fs.files_ending(""))
      if (dockerfile_name(oci::base_name(f))) dockerfile(f);
    for (const auto& f : fs.files_ending(".yml"))
      if (f.starts_with(".github/workflows/")) workflow(f);
    for (const auto& f : fs.files_ending(".yaml"))
      if (f.starts_with(".github/workflows/")) workflow(f);
    for (const auto& f : manifests) manifest(f);
    for (const auto& f : locks) lock(f);
    for (const auto& ev : platforms_) platform_php(ev);
    for (const auto& m : manifests) {
      if (set_aside_tree(m)) continue;  // an example's tests are not the repository's
      const std::string dir = m.size() > 13 ? m.substr(0, m.size() - 13) : "";  // "…/composer.json"
      // The configuration PHPUnit itself takes: the first of these it finds.
      for (const char* name : {"phpunit.xml", "phpunit.xml.dist", "phpunit.dist.xml"})
        if (ctx_.fs().is_file(dir + name)) {
          test_database(dir + name);
          break;
        }
    }
    if (packagist_) {
      ctx_.egress("repo.packagist.org", EgressOrigin::kDefault, "Packagist, Composer's default repository (metadata)");
      ctx_.egress("packagist.org", EgressOrigin::kDefault, "Packagist, Composer's default repository");
    }
    for (const auto& [name, evidence] : extensions_) extension(name, evidence);
  }

 private:
  std::optional<json> read_json(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return std::nullopt;
    json j = json::parse(*text, nullptr, false);
    if (j.is_discarded()) {
      ctx_.warn(rel, "malformed JSON, not used");
      return std::nullopt;
    }
    if (!j.is_object()) {
      ctx_.warn(rel, "not a JSON object, not used");
      return std::nullopt;
    }
    return j;
  }

  // The database the test suite runs on, as PHPUnit's configuration sets it
  // (Laravel's <env name="DB_CONNECTION" value="sqlite"/>, a DATABASE_URL
  // "sqlite:///%kernel.project_dir%/var/test.db"): its PDO driver is an
  // extension the tests load.
  void test_database(const std::string& rel) {
    pugi::xml_document doc;
    if (!read_xml(ctx_, rel, doc)) return;
    const pugi::xml_node php = doc.child("phpunit").child("php");
    std::size_t seen = 0;
    for (pugi::xml_node e = php.first_child(); e && ++seen <= 256; e = e.next_sibling()) {
      const std::string_view kind = e.name();
      if (kind != "env" && kind != "server" && kind != "var") continue;
      const std::string name = str::lower(e.attribute("name").as_string()),
                        value = str::lower(e.attribute("value").as_string());
      std::string driver;
      if (name == "db_connection" || name == "db_driver") driver = value;
      else if (name == "database_url" && value.find(':') != std::string::npos) driver = value.substr(0, value.find(':'));
      else continue;
      // Laravel's DB_CONNECTION names a connection of config/database.php
      // ('testing' => ['driver' => 'sqlite', …]); its driver is the one used.
      std::string via;
      if (name == "db_connection" && !known_driver(driver))
        if (auto d = laravel_driver(dir_of(rel), e.attribute("value").as_string()); !d.empty()) {
          via = " (config/database.php connection " + str::quote(value) + ": driver " + d + ")";
          driver = d;
        }
      const char* ext = driver == "sqlite" || driver == "sqlite3"                         ? "pdo_sqlite"
                        : driver == "mysql" || driver == "mariadb" || driver == "pdo_mysql" ? "pdo_mysql"
                        : driver == "pgsql" || driver == "postgres" || driver == "postgresql" || driver == "pdo_pgsql"
                            ? "pdo_pgsql"
                            : nullptr;
      if (ext)
        need_extension(ext, {rel, std::string("php.") + std::string(kind) + "." + e.attribute("name").as_string(),
                             e.attribute("value").as_string() + via});
    }
  }

  static bool known_driver(std::string_view d) {
    for (std::string_view k : {"sqlite", "sqlite3", "mysql", "mariadb", "pdo_mysql", "pgsql", "postgres", "postgresql",
                               "pdo_pgsql"})
      if (d == k) return true;
    return false;
  }

  // The driver of a connection in a Laravel app's config/database.php
  // (`'testing' => [ 'driver' => 'sqlite', … ]` after 'connections'), read
  // as text: the first 'driver' within the connection's brackets, a literal
  // or env()'s default (`'driver' => env('DB_DRIVER', 'sqlite')`). "" when
  // the file or the connection is not there. (The first 64 mentions of the
  // name are looked at, each within 8 KiB: hostile text stays linear.)
  std::string laravel_driver(const std::string& dir, const std::string& connection) {
    const std::string rel = join_rel(dir, "config/database.php");
    if (connection.empty() || connection.size() > 64 || !ctx_.fs().is_file(rel)) return {};
    auto text = ctx_.fs().read_text(rel);
    if (!text) return {};
    std::string_view t = *text;
    if (auto c = t.find("'connections'"); c != std::string_view::npos) t.remove_prefix(c);
    else if (auto d = t.find("\"connections\""); d != std::string_view::npos) t.remove_prefix(d);
    auto space = [&](std::string_view s, std::size_t i) {
      while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
      return i;
    };
    // A quoted literal at i, or env('NAME', 'default')'s default.
    auto literal = [&](std::string_view s, std::size_t i) -> std::string {
      if (s.compare(i, 4, "env(") == 0) {
        const auto comma = s.find(',', i);
        const auto close = s.find(')', i);
        if (comma == std::string_view::npos || close == std::string_view::npos || comma > close) return {};
        i = space(s, comma + 1);
      }
      if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return {};
      const auto e = s.find(s[i], i + 1);
      if (e == std::string_view::npos || e - i > 32) return {};
      return str::lower(s.substr(i + 1, e - i - 1));
    };
    std::size_t looked = 0;
    for (const char q : {'\'', '"'}) {
      const std::string key = q + connection + q;
      for (auto at = t.find(key); at != std::string_view::npos && ++looked <= 64; at = t.find(key, at + key.size())) {
        std::size_t i = space(t, at + key.size());
        if (t.compare(i, 2, "=>") != 0) continue;
        i = space(t, i + 2);
        if (t.compare(i, 6, "array(") == 0) i += 5;
        if (i >= t.size() || (t[i] != '[' && t[i] != '(')) continue;
        // The connection's own entries, up to its closing bracket (nested ones skipped over).
        const char open = t[i], close = open == '[' ? ']' : ')';
        int depth = 0;
        std::size_t end = i;
        for (; end < t.size() && end - i < 8192; ++end) {
          if (t[end] == open) ++depth;
          else if (t[end] == close && --depth == 0) break;
        }
        const std::string_view body = t.substr(i, end - i);
        for (const char dq : {'\'', '"'}) {
          const std::string dkey = std::string(1, dq) + "driver" + dq;
          const auto d = body.find(dkey);
          if (d == std::string_view::npos) continue;
          std::size_t j = space(body, d + dkey.size());
          if (body.compare(j, 2, "=>") != 0) continue;
          if (auto driver = literal(body, space(body, j + 2)); !driver.empty()) return driver;
        }
        return {};  // the connection, without a driver strata reads
      }
    }
    return {};
  }

  void need_extension(const std::string& name, Evidence ev) {
    auto& list = extensions_[name];
    if (list.size() < ScanContext::kRunLibEvidence) list.push_back(std::move(ev));
  }

  // The requirements of one `require` object: php is a constraint (kind and
  // note given), every ext-* an extension the project needs.
  void requirements(const std::string& rel, const std::string& field, const json& req, bool php) {
    if (!req.is_object()) return;
    for (const auto& [key, value] : req.items()) {
      std::string v = text_of(value);
      if (key == "php" && php) {
        auto range = parse_composer_constraint(v);
        // Debian 12's extension packages are built for its PHP 8.2.
        if (range && !admits_debian(*range) && !beyond_debian_)
          beyond_debian_ = Evidence{rel, field + ".php", v};
        ctx_.constraint("php", ConstraintKind::kSupport, {rel, field + ".php", v}, range);
      } else if (auto ext = extension_of(key); !ext.empty()) {
        need_extension(ext, {rel, field + "." + key, v});
      }
    }
  }

  void manifest(const std::string& rel) {
    auto doc = read_json(rel);
    if (!doc) return;
    const json& j = *doc;
    if (auto r = j.find("require"); r != j.end()) requirements(rel, "require", *r, true);
    if (auto r = j.find("require-dev"); r != j.end()) requirements(rel, "require-dev", *r, false);
    if (auto c = j.find("config"); c != j.end() && c->is_object())
      if (auto p = c->find("platform"); p != c->end() && p->is_object())
        if (auto php = p->find("php"); php != p->end() && php->is_string()) {
          platforms_.push_back({rel, "config.platform.php", php->get<std::string>()});
        }
    if (auto r = j.find("repositories"); r != j.end()) repositories(rel, *r);
  }

  // The PHP line the extension packages are for: Debian 12's 8.2, or the
  // floor's line of a require.php that excludes it.
  std::string php_line() const {
    if (!beyond_debian_) return "8.2";
    auto range = parse_composer_constraint(beyond_debian_->value);
    auto floor = range ? range->floor() : std::nullopt;
    if (!floor) return "8.2";
    return std::to_string(floor->major) + "." + std::to_string(floor->minor);
  }

  // shivammathur/setup-php's `extensions` input: the extensions CI runs the
  // tests with ("gd, intl, :opcache, pcov, imagick-3.7.0"; ":x" turns one
  // off, "none" all the defaults).
  void workflow(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text || text->find("setup-php") == std::string::npos) return;
    auto doc = oci::load_yaml(*text, rel);
    if (!doc || !doc->IsMap() || !(*doc)["jobs"] || !(*doc)["jobs"].IsMap()) return;  // the CI reader says why
    try {
      for (const auto& job : (*doc)["jobs"]) {
        const YAML::Node steps = job.second.IsMap() ? job.second["steps"] : YAML::Node();
        if (!steps || !steps.IsSequence()) continue;
        std::size_t i = 0;
        for (const auto& step : steps) {
          const std::string field = "jobs." + job.first.as<std::string>() + ".steps[" + std::to_string(i++) + "]";
          if (!step.IsMap() || !step["uses"] || !step["uses"].IsScalar() ||
              !step["uses"].as<std::string>().starts_with("shivammathur/setup-php@"))
            continue;
          const YAML::Node with = step["with"];
          if (!with || !with.IsMap()) continue;
          // `coverage: pcov` / `xdebug`: the coverage driver, an extension the test run loads.
          if (with["coverage"] && with["coverage"].IsScalar()) {
            const std::string driver = with["coverage"].as<std::string>();
            if (driver == "pcov" || driver == "xdebug")
              need_extension(driver, {rel, field + ".with.coverage", driver});
          }
          if (!with["extensions"] || !with["extensions"].IsScalar()) continue;
          const std::string list = with["extensions"].as<std::string>();
          if (list.find("${{") != std::string::npos) continue;
          for (auto item : str::split(list, ',')) {
            std::string_view w = str::trim(item);
            if (w.empty() || w.starts_with(':') || w == "none") continue;
            if (auto name = extension_word(w); !name.empty())
              need_extension(setup_php_name(name), {rel, field + ".with.extensions", std::string(w)});
          }
        }
      }
    } catch (const YAML::Exception&) {
      // an unexpected shape: the CI reader warns about the file
    }
  }

  // Whether a PHP range admits Debian 12's PHP 8.2 (8.2.0 or a later 8.2 release).
  static bool admits_debian(const Range& r) {
    return r.contains(Version{8, 2, 0, ""}) || r.contains(Version{8, 2, 99, ""});
  }

  // config.platform.php (and the lock's platform-overrides.php): the PHP
  // Composer resolves the dependencies for, "your target platform" in
  // Composer's words: the project's own choice of PHP, a pin. Below Debian
  // 12's 8.2 it is the oldest PHP the lock must install on, not one to
  // install: where require.php and every package of the lock beside it
  // (read whole) admit 8.2
  // (FreshRSS's platform 8.1, PrivateBin's 7.4, both tested on 8.2 too),
  // Debian's PHP installs the same lock, and its line is the pin.
  void platform_php(const Evidence& ev) {
    const bool resolved = ev.field == "platform-overrides.php";
    const std::string note = resolved ? "the target platform the lock was resolved for: PHP "
                                      : "the target platform Composer resolves the dependencies for: PHP ";
    auto range = parse_composer_constraint(ev.value);
    const auto floor = range ? range->floor() : std::nullopt;
    // Checked only against a lock beside the project's composer.json, read whole.
    const std::string dir = dir_of(ev.file);
    const auto lock = locks_admit_debian_.find(dir);
    if (floor && *floor < Version{8, 2, 0, ""} && !beyond_debian_ && lock != locks_admit_debian_.end() && lock->second) {
      ctx_.constraint("php", ConstraintKind::kPin, ev, parse_version_line("8.2"),
                      note + ev.value + ", the oldest it installs on; require.php and every locked package admit "
                                        "Debian 12's PHP 8.2, which installs the same lock");
      return;
    }
    ctx_.constraint("php", ConstraintKind::kPin, ev, range, note + ev.value);
  }

  // `repositories`: a list (or an object by name) of {type, url} entries;
  // `{"packagist.org": false}` turns the default repository off.
  void repositories(const std::string& rel, const json& repos) {
    if (!repos.is_array() && !repos.is_object()) {
      ctx_.warn(rel, "repositories is neither a list nor an object; not read");
      return;
    }
    for (const auto& [key, entry] : repos.items()) {
      if (key == "packagist.org" || key == "packagist") {
        if (entry.is_boolean() && !entry.get<bool>()) packagist_ = false;
        continue;
      }
      if (!entry.is_object()) continue;
      if (auto off = entry.find("packagist.org"); off != entry.end() && off->is_boolean() && !off->get<bool>()) {
        packagist_ = false;
        continue;
      }
      std::string type = entry.contains("type") ? text_of(entry["type"]) : "";
      std::string url = entry.contains("url") ? text_of(entry["url"]) : "";
      if (type == "path" || type == "artifact" || url.empty()) continue;
      ctx_.egress_url(url, EgressOrigin::kConfig, "Composer repository (" + (type.empty() ? "composer" : type) + ")",
                      {rel, "repositories", url});
    }
  }

  void lock(const std::string& rel) {
    // A composer.lock is a manifest-sized JSON document (a large Drupal
    // site's is a few MB): read whole, within the manifest limit.
    auto doc = read_json(rel);
    if (!doc) return;
    const json& j = *doc;
    if (auto p = j.find("plugin-api-version"); p != j.end() && p->is_string()) {
      std::string v = p->get<std::string>();
      auto ver = parse_version(v);
      if (ver)
        ctx_.constraint(
            "composer", ConstraintKind::kPin, {rel, "plugin-api-version", v},
            parse_npm_range(">=" + std::to_string(ver->major) + "." + std::to_string(ver->minor) + ".0 <" +
                            std::to_string(ver->major + 1) + ".0.0"),
            "written by a Composer with plugin API " + v + " (that Composer minor or a later one of its major)");
      else
        ctx_.warn(rel, "plugin-api-version " + str::quote(v) + " is not a version");
    }
    if (auto p = j.find("platform"); p != j.end()) requirements(rel, "platform", *p, true);
    if (auto p = j.find("platform-dev"); p != j.end()) requirements(rel, "platform-dev", *p, false);
    if (auto o = j.find("platform-overrides"); o != j.end() && o->is_object())
      if (auto php = o->find("php"); php != o->end() && php->is_string())
        platforms_.push_back({rel, "platform-overrides.php", php->get<std::string>()});
    // The dependencies' php requirements: the one with the highest floor is
    // a floor of the project (Composer's platform check refuses a lower PHP).
    // The dev packages' too: the tests run with them installed (phpunit 12
    // needs PHP 8.3 whatever require.php admits).
    std::optional<Version> top;
    Evidence top_ev;
    bool admits = true;  // every locked package admits Debian's PHP 8.2 (platform_php)
    for (const char* list : {"packages", "packages-dev"}) {
      auto l = j.find(list);
      if (l == j.end()) continue;
      if (!l->is_array()) {
        ctx_.warn(rel, std::string(list) + " is not a list; not read");
        admits = false;
        continue;
      }
      for (const auto& pkg : *l) {
        if (!pkg.is_object()) continue;
        std::string name = pkg.contains("name") ? text_of(pkg["name"]) : "";
        if (name.empty()) continue;
        const std::string field = std::string(list) + "[" + name + "]";
        if (auto r = pkg.find("require"); r != pkg.end() && r->is_object()) {
          for (const auto& [key, value] : r->items()) {
            std::string v = text_of(value);
            if (key == "php") {
              auto range = parse_composer_constraint(v);
              if (range && !admits_debian(*range)) admits = false;
              if (range && !range->unbounded_below())
                if (auto f = range->floor(); f && (!top || *f > *top)) {
                  top = f;
                  top_ev = {rel, field + ".require.php", v};
                }
            } else if (auto ext = extension_of(key); !ext.empty()) {
              need_extension(ext, {rel, field + ".require." + key, v});
            }
          }
        }
        auto d = pkg.find("dist");
        if (d != pkg.end() && d->is_object()) {
          if (auto u = d->find("url"); u != d->end() && u->is_string())
            dist(rel, field + ".dist.url", u->get<std::string>());
          if (auto t = d->find("type"); t != d->end() && t->is_string() && t->get<std::string>() == "zip" && !unzip_) {
            unzip_ = true;
            ctx_.run_lib("unzip", "composer", {rel, field + ".dist.type", "zip"}, Purpose::kBuild);
          }
        }
        auto src = pkg.find("source");
        if (src != pkg.end() && src->is_object() && src->contains("type") && text_of((*src)["type"]) == "git") {
          // Composer checks a package out with git when its dist cannot be
          // used (or it has none): git is one of the two helpers Debian's
          // composer recommends, and an overlay installs no recommends.
          if (!git_) {
            git_ = true;
            ctx_.run_lib("git", "composer", {rel, field + ".source.type", "git"}, Purpose::kBuild);
          }
          if (d == pkg.end() || !d->is_object())
            if (auto u = src->find("url"); u != src->end() && u->is_string())
              ctx_.egress_url(u->get<std::string>(), EgressOrigin::kLockfile,
                              "Composer checks out a package that has no dist (git)",
                              {rel, field + ".source.url", u->get<std::string>()});
        }
      }
    }
    if (top)
      ctx_.constraint("php", ConstraintKind::kSupport, top_ev, parse_composer_constraint(top_ev.value),
                      "the highest php floor of the locked packages");
    locks_admit_debian_[dir_of(rel)] = admits;
  }

  void dist(const std::string& rel, const std::string& field, const std::string& url) {
    std::string host = url_host(url);
    if (host.empty() || !dist_hosts_.insert(host).second) return;
    ctx_.egress_url(url, EgressOrigin::kLockfile, "Composer package downloads (dist)", {rel, field, url});
    // GitHub's zipball API answers with a redirect to codeload.github.com.
    if (host == "api.github.com")
      ctx_.egress("codeload.github.com", EgressOrigin::kLockfile, "api.github.com zipballs redirect here",
                  Evidence{rel, field, url});
  }

  // docker-php-ext-install / pecl install in a Dockerfile RUN line, or
  // mlocati's install-php-extensions (which wraps both; `@composer` is not an
  // extension): those extensions are compiled, so the -dev libraries they
  // need are build needs.
  void dockerfile(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    std::string joined;
    for (auto line : str::split(*text, '\n')) {
      std::string_view l = str::trim(line);
      if (l.ends_with('\\')) {
        joined += std::string(l.substr(0, l.size() - 1)) + " ";
        continue;
      }
      joined += std::string(l);
      command_line(rel, joined);
      joined.clear();
    }
    if (!joined.empty()) command_line(rel, joined);
  }

  void command_line(const std::string& rel, std::string_view line) {
    if (line.find("docker-php-ext-install") == std::string_view::npos && line.find("pecl") == std::string_view::npos &&
        line.find("install-php-extensions") == std::string_view::npos)
      return;
    auto words = str::split_ws(line);
    for (std::size_t i = 0; i < words.size(); ++i) {
      std::string_view w = words[i];
      std::string how;
      std::size_t from = i + 1;
      if (w == "docker-php-ext-install" || w == "install-php-extensions")
        how = std::string(w);
      else if (w == "pecl" && i + 1 < words.size() && words[i + 1] == "install") {
        how = "pecl install";
        from = i + 2;
      } else {
        continue;
      }
      for (std::size_t k = from; k < words.size(); ++k) {
        std::string_view a = words[k];
        if (a == "&&" || a == "||" || a == ";" || a == "|" || a.starts_with("&&")) break;
        bool last = a.ends_with(';');
        if (last) a.remove_suffix(1);
        if (a.starts_with('-')) continue;  // -j$(nproc), -o, -f
        if (auto name = extension_word(a); !name.empty()) {
          compiled_[name] = Evidence{rel, how, std::string(a)};
          need_extension(name, {rel, how, std::string(a)});
        }
        if (last) break;
      }
    }
  }

  // Debian's PHP has the extension as a package (or built in, php8.2-common):
  // that is the need. When a Dockerfile compiles it (docker-php-ext-install,
  // pecl install), that Dockerfile's PHP is the php image's own, built from
  // source; the contract also records the compile and what it needs, and the
  // router takes it instead of the package on a base whose PHP is not
  // Debian's (docs/contract.md, "PHP extensions").
  void extension(const std::string& name, const std::vector<Evidence>& evidence) {
    const KbPhpExtension* ext = ctx_.kb().php_extension(name);
    const std::string by = "php:ext-" + name;
    if (!ext) {
      ctx_.warn(
          evidence.front().file,
          "PHP extension " + name + " is not in the knowledge base (php_extensions); nothing is provisioned for it");
      return;
    }
    // A project whose PHP is not Debian 12's 8.2 needs the packages built
    // for its own PHP line: php8.3-gd, as an archive with that PHP names them
    // (packages.sury.org). Debian's version-less PECL packages (php-pcov,
    // php-redis) are built for its 8.2; there the line's own name is the
    // package (php8.3-pcov), since the version-less one follows the archive's
    // default PHP, not the project's.
    const std::string line = php_line();
    for (std::string pkg : ext->debian) {
      if (pkg.starts_with("php8.2-") && line != "8.2") pkg = "php" + line + pkg.substr(6);
      else if (pkg.starts_with("php-") && line != "8.2") pkg = "php" + line + pkg.substr(3);
      for (const auto& ev : evidence) ctx_.run_lib(pkg, by, ev, Purpose::kBuild);
    }
    if (!ext->debian.empty() && line == "8.2" && !beyond_warned_) {
      // Debian's own line; the packages follow the line the contract
      // provisions (config.platform.php 8.4 beside require.php ^8.2).
      beyond_warned_ = true;
      ctx_.line_named("php", line, evidence.front(), {}, /*versionless=*/true);
    }
    if (!ext->debian.empty() && line != "8.2" && !beyond_warned_) {
      beyond_warned_ = true;
      ctx_.line_named("php", line, *beyond_debian_,
                      beyond_debian_->field + " " + str::quote(beyond_debian_->value) +
                          " excludes Debian 12's PHP 8.2: the extension packages are named for PHP {line} "
                          "(php{line}-*), {why}, which an archive with that PHP has (Debian 12's has not); a PHP "
                          "built elsewhere needs its own build of them");
    }
    auto compiled = compiled_.find(name);
    if (compiled == compiled_.end()) return;
    PackageSignals& s = ctx_.package("php-ext", name);
    s.structural = BuildKind::kPrebuilt;
    s.structural_fallback = "compile";
    s.structural_reason = (ext->debian.empty() ? std::string("Debian's PHP has it built in (php8.2-common)")
                                               : "Debian's PHP has it as " + str::join(ext->debian, ", ")) +
                          "; " + compiled->second.file + " compiles it with " + compiled->second.field +
                          (ext->pecl ? " (a PECL extension)" : "") + " into the php image's own PHP";
    s.build_deps = ext->build_deps;
    s.evidence = evidence;
    s.direct = true;
  }

  ScanContext& ctx_;
  bool packagist_ = true;
  std::optional<Evidence> beyond_debian_;  // a require.php that excludes PHP 8.2
  std::map<std::string, bool> locks_admit_debian_;  // a lock's directory → every locked package admits PHP 8.2
  std::vector<Evidence> platforms_;             // config.platform.php, platform-overrides.php: read last
  bool beyond_warned_ = false;
  std::map<std::string, std::vector<Evidence>> extensions_;
  std::map<std::string, Evidence> compiled_;
  std::set<std::string> dist_hosts_;
  bool unzip_ = false, git_ = false;
};

}  // namespace

Result<Range> parse_composer_constraint(std::string_view text) {
  std::string t(str::trim(text));
  if (t.empty()) return fail(ErrorCode::kInvalidArgument, "empty Composer constraint");
  // "|" alone is an or, as "||" is.
  std::string norm;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '|') {
      norm += " || ";
      if (i + 1 < t.size() && t[i + 1] == '|') ++i;
    } else if (t[i] == ',') {
      norm += ' ';
    } else {
      norm += t[i];
    }
  }
  std::string out;
  for (auto group : str::split(norm, '|')) {
    group = str::trim(group);
    if (group.empty()) continue;
    std::vector<std::string> tokens;
    for (auto w : str::split_ws(group)) {
      std::string tok(w);
      if (auto at = tok.find('@'); at != std::string::npos) tok = tok.substr(0, at);  // ^8.2@dev
      if (tok.empty()) continue;
      // ">= 8.1": an operator with a space before its version.
      if (!tokens.empty() && tok.find_first_not_of("<>=!~^") != std::string::npos &&
          tokens.back().find_first_not_of("<>=!~^") == std::string::npos) {
        tokens.back() += tok;
        continue;
      }
      tokens.push_back(tok);
    }
    std::string g;
    for (auto& tok : tokens) {
      std::string op = tok.substr(0, tok.find_first_not_of("<>=!~^"));
      std::string ver = tok.substr(op.size());
      if (!ver.empty() && (ver[0] == 'v' || ver[0] == 'V')) ver = ver.substr(1);
      if (op == "!=") continue;  // excludes one release; floors ignore it
      if (ver.empty() || !std::isdigit(static_cast<unsigned char>(ver[0])))
        if (ver != "*" && tok != "-")
          return fail(ErrorCode::kInvalidArgument, "not a Composer version constraint: " + str::quote(tok));
      if (op == "~" && std::count(ver.begin(), ver.end(), '.') == 1) {
        // Composer: ~8.2 is >=8.2 <9.0.
        auto v = parse_version(ver);
        if (!v) return fail(ErrorCode::kInvalidArgument, "not a Composer version constraint: " + str::quote(tok));
        tok = ">=" + v->str() + " <" + std::to_string(v->major + 1) + ".0.0";
      } else {
        tok = op + ver;
      }
      g += (g.empty() ? "" : " ") + tok;
    }
    if (g.empty()) continue;
    out += (out.empty() ? "" : " || ") + g;
  }
  if (out.empty()) return fail(ErrorCode::kInvalidArgument, "empty Composer constraint");
  return parse_npm_range(out);
}

void scan_php(ScanContext& ctx) { PhpScanner(ctx).run(); }

}  // namespace strata::contract
