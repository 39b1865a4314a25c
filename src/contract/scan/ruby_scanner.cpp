#include "contract/scan/ruby_scanner.hpp"

#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "contract/scan/build_env_scanner.hpp"
#include "oci/tar_entry.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

// The numeric part of a RubyGems version ("7.2.0.alpha" → {7, 2, 0}); at
// most three segments are kept, the rest only ordered within them.
std::vector<std::uint64_t> gem_segments(std::string_view v) {
  std::vector<std::uint64_t> out;
  std::size_t i = 0;
  while (i < v.size() && out.size() < 8) {
    if (!std::isdigit(static_cast<unsigned char>(v[i]))) break;
    std::uint64_t n = 0;
    std::size_t digits = 0;
    while (i < v.size() && std::isdigit(static_cast<unsigned char>(v[i]))) {
      if (++digits > 9) return {};  // not a version any gem publishes
      n = n * 10 + static_cast<std::uint64_t>(v[i] - '0');
      ++i;
    }
    out.push_back(n);
    if (i < v.size() && v[i] == '.' && i + 1 < v.size() && std::isdigit(static_cast<unsigned char>(v[i + 1])))
      ++i;
    else
      break;
  }
  return out;
}

std::string segments_text(const std::vector<std::uint64_t>& s) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < 3; ++i) out += (i ? "." : "") + std::to_string(s[i]);
  return out;
}

std::optional<Version> gem_version(std::string_view v) {
  auto s = gem_segments(str::trim(v));
  if (s.empty()) return std::nullopt;
  return parse_version(segments_text(s));
}

// A locked spec's platform says it installs as built on linux x86_64 (glibc).
bool linux_platform(std::string_view p) { return p == "x86_64-linux" || p == "x86_64-linux-gnu"; }

// The quoted string literals of a Ruby argument list, in order, with the
// keyword they follow ("file" for `file: ".ruby-version"`), "" for positional.
std::vector<std::pair<std::string, std::string>> literals(std::string_view args) {
  std::vector<std::pair<std::string, std::string>> out;
  std::string key;
  for (std::size_t i = 0; i < args.size(); ++i) {
    char c = args[i];
    if (c == '#') break;  // a comment outside a literal
    if (c == '"' || c == '\'') {
      auto q = args.find(c, i + 1);
      if (q == std::string_view::npos) break;
      out.emplace_back(key, std::string(args.substr(i + 1, q - i - 1)));
      key.clear();
      i = q;
      continue;
    }
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == ':') {
      std::size_t j = i;
      if (args[j] == ':') ++j;  // :file => "x"
      std::size_t start = j;
      while (j < args.size() && (std::isalnum(static_cast<unsigned char>(args[j])) || args[j] == '_')) ++j;
      std::string word(args.substr(start, j - start));
      std::size_t k = j;
      while (k < args.size() && args[k] == ' ') ++k;
      if (k < args.size() && args[k] == ':' && (k + 1 >= args.size() || args[k + 1] != ':'))
        key = word;
      else if (args.substr(k).starts_with("=>"))
        key = word;
      i = j > i ? j - 1 : i;
    }
  }
  return out;
}

// "git@github.com:rails/rails.git" (scp-like SSH) → "github.com"; "" otherwise.
std::string ssh_host(std::string_view url) {
  if (url.find("://") != std::string_view::npos) return {};
  auto at = url.find('@');
  auto colon = url.find(':');
  if (at == std::string_view::npos || colon == std::string_view::npos || colon < at) return {};
  std::string host = str::lower(url.substr(at + 1, colon - at - 1));
  if (host.empty()) return {};
  for (char c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-') return {};
  return host;
}

// Installed gems (vendor/bundle/…, a gem's own Gemfile under vendor/) are
// dependencies, not projects of the repository.
bool installed_copy(std::string_view rel) {
  return rel.starts_with("vendor/") || rel.find("/vendor/") != std::string_view::npos;
}

std::vector<std::string> project_files(const RepoFs& fs, std::string_view name) {
  auto files = fs.files_named(name);
  std::erase_if(files, [](const std::string& f) { return installed_copy(f); });
  return files;
}

class RubyScanner {
 public:
  explicit RubyScanner(ScanContext& ctx) : ctx_(ctx) {}

  void run() {
    auto& fs = ctx_.fs();
    // gems.rb and gems.locked: Bundler's other names for the two files.
    auto gemfiles = project_files(fs, "Gemfile");
    auto locks = project_files(fs, "Gemfile.lock");
    for (auto [more, name] : {std::pair{&gemfiles, "gems.rb"}, std::pair{&locks, "gems.locked"}}) {
      auto other = project_files(fs, name);
      more->insert(more->end(), other.begin(), other.end());
    }
    auto versions = project_files(fs, ".ruby-version");
    if (gemfiles.empty() && locks.empty() && versions.empty()) return;
    ctx_.ecosystem("ruby");
    std::vector<std::string> projects = gemfiles;
    projects.insert(projects.end(), locks.begin(), locks.end());
    projects.insert(projects.end(), versions.begin(), versions.end());
    ctx_.needs_tool("ruby", projects, "a Ruby project (Bundler)");
    for (const auto& f : versions) ruby_version(f);
    for (const auto& f : gemfiles) gemfile(f);
    for (const auto& f : locks) lock(f);
    bundle_settings();
    system_tests();
    // rubygems.org's compact index unless every source is another server
    // (a scoped `source … do` block adds one; it replaces nothing).
    if ((!custom_source_ || rubygems_source_) && (!gemfiles.empty() || !locks.empty())) {
      ctx_.egress("rubygems.org", EgressOrigin::kDefault, "the default gem source (Bundler)");
      ctx_.egress("index.rubygems.org", EgressOrigin::kDefault, "RubyGems' compact index (Bundler)");
    }
  }

 private:
  // Bundler settings that change what compiles, wherever the repository sets
  // them: .bundle/config, a Dockerfile's ENV or `bundle config` line.
  //  - force_ruby_platform: every gem is installed from its source gem;
  //  - nokogiri with --use-system-libraries (build.nokogiri, or
  //    NOKOGIRI_USE_SYSTEM_LIBRARIES): a nokogiri that compiles links the
  //    system's libxml2 and libxslt.
  void bundle_settings() {
    std::vector<std::string> files;
    for (const auto& f : ctx_.fs().files_named("config"))
      if (f == ".bundle/config" || f.ends_with("/.bundle/config")) files.push_back(f);
    for (const auto& f : ctx_.fs().files_ending(""))
      if (dockerfile_name(oci::base_name(f))) files.push_back(f);
    std::optional<Evidence> force, system_libs;
    for (const auto& f : files) {
      auto text = ctx_.fs().read_text(f);
      if (!text) continue;
      for (auto raw : str::split(*text, '\n')) {
        std::string_view line = str::trim(raw);
        if (line.empty() || line.front() == '#') continue;
        std::string l = str::lower(line);
        if (!force &&
            (l.find("bundle_force_ruby_platform") != std::string::npos ||
             l.find("force_ruby_platform true") != std::string::npos) &&
            l.find("false") == std::string::npos && l.find("\"0\"") == std::string::npos)
          force = Evidence{f, "force_ruby_platform", std::string(line.substr(0, 200))};
        if (!system_libs &&
            (l.find("nokogiri_use_system_libraries") != std::string::npos ||
             (l.find("nokogiri") != std::string::npos && l.find("use-system-libraries") != std::string::npos)))
          system_libs = Evidence{f, "nokogiri system libraries", std::string(line.substr(0, 200))};
      }
    }
    if (force)
      for (const auto& [key, sig] : ctx_.packages()) {
        if (key.first != "gem") continue;
        PackageSignals& s = ctx_.package("gem", key.second);
        s.linux_wheel = false;
        s.sdist_only = true;
        s.evidence.push_back(*force);
      }
    if (system_libs && ctx_.kb().package("gem", "nokogiri")) {
      auto& pkgs = ctx_.packages();
      if (pkgs.count({"gem", "nokogiri"})) {
        PackageSignals& s = ctx_.package("gem", "nokogiri");
        s.build_deps = {"libxml2-dev", "libxslt1-dev", "pkg-config"};
        s.evidence.push_back(*system_libs);
      }
    }
  }

  // The browser Rails system tests and Capybara feature specs drive, from the
  // line of their setup that selects a driver (`driven_by`, `javascript_driver
  // =`, `default_driver =` in test/application_system_test_case.rb,
  // spec/rails_helper.rb, spec/support/*.rb), by the driver's name:
  //  - `driven_by :selenium` (Rails' default browser: Chrome), a name with
  //    "chrome" (`:headless_chrome`, `:selenium_chrome_headless`) → Debian's
  //    chromium and chromium-driver;
  //  - a name with "firefox", Capybara's `:selenium` (Firefox) and
  //    `:selenium_headless` → firefox-esr; Debian has no geckodriver, which
  //    Selenium Manager downloads from its GitHub releases;
  //  - a name with "cuprite", "ferrum" or "apparition" (Chrome over CDP):
  //    chromium alone;
  //  - a Selenium browser that may run with a window (no "headless" in its
  //    name) needs an X display: xvfb.
  void system_tests() {
    struct Browser {
      bool chrome = false, chromedriver = false, firefox = false, display = false;
      std::optional<Evidence> at;
    } b;
    std::size_t read = 0;
    for (const auto& f : ctx_.fs().files_ending(".rb")) {
      if (!(f.starts_with("test/") || f.starts_with("spec/"))) continue;
      const std::string_view base = oci::base_name(f);
      if (base.find("system_test_case") == std::string_view::npos && base.find("helper") == std::string_view::npos &&
          f.find("/support/") == std::string::npos)
        continue;
      if (++read > 200) break;
      auto text = ctx_.fs().read_text(f);
      if (!text) continue;
      std::size_t n = 0;
      for (auto raw : str::split(*text, '\n')) {
        ++n;
        std::string_view line = str::trim(raw);
        if (line.empty() || line.front() == '#') continue;
        if (auto c = line.find(" #"); c != std::string_view::npos) line = line.substr(0, c);  // a trailing comment
        // Only a line that selects the driver the tests use: registering one
        // (`register_driver :firefox do …`) uses nothing, and a remote
        // browser (`browser: :remote`, a Selenium grid) is another machine's.
        const bool selects = line.find("driven_by") != std::string_view::npos ||
                             line.find("javascript_driver =") != std::string_view::npos ||
                             line.find("default_driver =") != std::string_view::npos;
        if (!selects || line.find(":remote") != std::string_view::npos) continue;
        // The driver names on the line (`:headless_firefox`, `:selenium_chrome`,
        // a registered `:headless_cuprite`), read by what they contain.
        bool chrome = false, cdp = false, firefox = false, windowed = false;
        for (std::size_t at = line.find(':'); at != std::string_view::npos; at = line.find(':', at + 1)) {
          std::size_t e = at + 1;
          while (e < line.size() && (std::isalnum(static_cast<unsigned char>(line[e])) || line[e] == '_')) ++e;
          if (e == at + 1 || (at > 0 && line[at - 1] == ':')) continue;  // "::" or a lone colon
          const std::string_view sym = line.substr(at + 1, e - at - 1);
          const bool headless = sym.find("headless") != std::string_view::npos;
          if (sym.find("cuprite") != std::string_view::npos || sym.find("ferrum") != std::string_view::npos ||
              sym.find("apparition") != std::string_view::npos) {
            cdp = true;  // Chrome over CDP, no driver program
          } else if (sym.find("chrome") != std::string_view::npos) {
            chrome = true;
            windowed = windowed || !headless;
          } else if (sym.find("firefox") != std::string_view::npos || sym == "selenium_headless" ||
                     (sym == "selenium" && line.find("driven_by") == std::string_view::npos)) {
            firefox = true;  // Capybara's :selenium and :selenium_headless drive Firefox
            windowed = windowed || !headless;
          }
        }
        // `driven_by :selenium` alone: Rails' default browser, Chrome, in a window.
        if (line.find("driven_by :selenium") != std::string_view::npos && line.find("using") == std::string_view::npos &&
            !chrome && !firefox) {
          chrome = true;
          windowed = true;
        }
        if (!chrome && !cdp && !firefox) continue;
        b.chrome = b.chrome || chrome || cdp;
        b.chromedriver = b.chromedriver || chrome;
        b.firefox = b.firefox || firefox;
        b.display = b.display || windowed;
        if (!b.at) b.at = Evidence{f, "line " + std::to_string(n), std::string(line.substr(0, 160))};
      }
    }
    if (!b.at) return;
    auto need = [&](const char* program) {
      if (const auto* pkgs = ctx_.kb().program_packages(program))
        for (const auto& pkg : *pkgs) ctx_.run_lib(pkg, std::string("exec:") + program, *b.at, Purpose::kBuild);
    };
    if (b.chrome) need("chromium");
    if (b.chromedriver) need("chromedriver");
    if (b.firefox) {
      need("firefox");
      for (const char* host : {"github.com", "release-assets.githubusercontent.com", "objects.githubusercontent.com"})
        ctx_.egress(host, EgressOrigin::kInstallTime,
                    "Selenium Manager downloads geckodriver (Debian has none) from its GitHub releases for the system tests",
                    *b.at);
    }
    if (b.display) need("Xvfb");
    importmap_hosts();
  }

  // importmap-rails: config/importmap.rb pins JavaScript modules, `pin
  // "trix", to: "https://ga.jspm.io/npm:trix@2.0.4/…"`; a pin with a URL is
  // fetched by the browser from that host, so the system tests' browser
  // reaches it (a pin without `to:` is served by the app itself).
  void importmap_hosts() {
    for (const auto& f : ctx_.fs().files_named("importmap.rb")) {
      if (!(f == "config/importmap.rb" || f.ends_with("/config/importmap.rb")) || installed_copy(f) ||
          set_aside_tree(f))
        continue;
      auto text = ctx_.fs().read_text(f);
      if (!text) continue;
      std::size_t n = 0, pins = 0;
      for (auto raw : str::split(*text, '\n')) {
        ++n;
        std::string_view line = str::trim(raw);
        if (!line.starts_with("pin ") || ++pins > 512) continue;
        if (auto c = line.find(" #"); c != std::string_view::npos) line = line.substr(0, c);  // a trailing comment
        auto to = line.find("to:");
        if (to == std::string_view::npos) continue;
        std::string_view rest = str::trim(line.substr(to + 3));
        if (rest.empty() || (rest.front() != '"' && rest.front() != '\'')) continue;
        const char quote = rest.front();
        rest.remove_prefix(1);
        const std::string url(rest.substr(0, rest.find(quote)));
        if (!url.starts_with("https://") && !url.starts_with("http://")) continue;
        std::string_view name = str::trim(line.substr(4));
        name = name.substr(0, name.find(','));
        ctx_.egress_url(url, EgressOrigin::kConfig,
                        std::string(f) + " pins " + std::string(name) +
                            " from it; the browser the system tests drive loads it",
                        Evidence{f, "line " + std::to_string(n), std::string(line.substr(0, 160))});
      }
    }
  }

  // ".ruby-version": "3.3.0", "ruby-3.3.0", "3.3"; another engine is a note.
  void ruby_version(const std::string& rel) {
    auto v = version_file(rel);
    if (!v) return;
    ctx_.constraint("ruby", ConstraintKind::kPin, {rel, "version", *v}, parse_version_line(*v));
  }

  std::optional<std::string> version_file(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return std::nullopt;
    std::string v;
    for (auto line : str::split(*text, '\n')) {
      line = str::trim(line);
      if (line.empty() || line.front() == '#') continue;
      v = std::string(line);
      break;
    }
    if (v.empty()) {
      ctx_.warn(rel, "empty version file");
      return std::nullopt;
    }
    if (v.starts_with("ruby-")) v = v.substr(5);
    if (gem_segments(v).empty()) {
      ctx_.note(rel,
                str::quote(v) + " names no CRuby release (another engine, or not a version); no floor taken from it");
      return std::nullopt;
    }
    return v;
  }

  void gemfile(const std::string& rel) {
    auto text = ctx_.fs().read_text(rel);
    if (!text) return;
    for (auto raw : str::split(*text, '\n')) {
      std::string_view line = str::trim(raw);
      if (line.empty() || line.front() == '#') continue;
      auto word_end = line.find_first_of(" (");
      std::string_view word = line.substr(0, word_end);
      std::string_view args = word_end == std::string_view::npos ? std::string_view() : line.substr(word_end);
      if (!args.empty() && args.front() == '(') args.remove_prefix(1);
      if (word == "ruby")
        ruby_directive(rel, args);
      else if (word == "source")
        source(rel, args);
      else if (word == "gem")
        gem(rel, args);
      else if (word == "gemspec")
        gemspec(rel, args);
      else if (auto at = line.find("load_gemspec("); at != std::string_view::npos)
        // `spec = Bundler.load_gemspec(File.expand_path('app.gemspec', __dir__))`
        for (const auto& [key, value] : literals(line.substr(at + 13)))
          if (key.empty() && value.ends_with(".gemspec") && value.find("..") == std::string::npos) {
            required_ruby_version(join_rel(dir_of(rel), value));
            break;
          }
    }
  }

  // `gemspec` in a Gemfile: Bundler loads the .gemspec beside it (or at
  // `path:`), whose `required_ruby_version` is the Ruby the project declares
  // it supports (an app that is also a gem: a Rails engine, a CLI).
  void gemspec(const std::string& rel, std::string_view args) {
    std::string dir = dir_of(rel);
    for (const auto& [key, value] : literals(args))
      if (key == "path") dir = join_rel(dir, value);
    for (const auto& file : ctx_.fs().list_dir(dir == "." ? "." : dir))
      if (file.ends_with(".gemspec")) required_ruby_version(join_rel(dir, file));
  }

  // A gemspec's `spec.required_ruby_version = ">= 3.1"` (or a
  // Gem::Requirement, or a list): the project's Ruby support. Each gemspec once.
  void required_ruby_version(const std::string& spec) {
    if (!gemspecs_read_.insert(spec).second || !ctx_.fs().is_file(spec)) return;
    auto text = ctx_.fs().read_text(spec);
    if (!text) return;
    std::size_t n = 0;
    for (auto raw : str::split(*text, '\n')) {
      ++n;
      std::string_view line = str::trim(raw);
      const auto at = line.find("required_ruby_version");
      if (line.starts_with('#') || at == std::string_view::npos) continue;
      std::string_view rest = str::trim(line.substr(at + 21));
      if (!rest.starts_with('=') || rest.starts_with("==")) continue;
      rest.remove_prefix(1);
      std::string reqs;
      for (const auto& [key, value] : literals(rest))
        if (key.empty()) reqs += (reqs.empty() ? "" : ", ") + value;
      auto range = parse_gem_requirement(reqs);
      if (reqs.empty() || !range) {
        ctx_.note(spec, "line " + std::to_string(n) + ": required_ruby_version without a requirement strata reads");
        return;
      }
      ctx_.constraint("ruby", ConstraintKind::kSupport, {spec, "line " + std::to_string(n) + " required_ruby_version", reqs},
                      range, "the gemspec the Gemfile loads requires it");
      return;
    }
  }

  void ruby_directive(const std::string& rel, std::string_view args) {
    auto lits = literals(args);
    std::string reqs;
    // `ruby File.read(".ruby-version").strip` reads the file as `file:` does.
    const bool read_call = args.find("File.read") != std::string_view::npos;
    for (const auto& [key, value] : lits) {
      if (key == "file" || (read_call && key.empty())) {
        std::string target = join_rel(dir_of(rel), value);
        auto v = version_file(target);
        if (!v) {
          ctx_.warn(rel, "ruby file: " + str::quote(value) + " gives no version");
          return;
        }
        std::string field = read_call ? "ruby File.read(" + value + ")" : "ruby file: " + value;
        ctx_.constraint("ruby", ConstraintKind::kSupport, {rel, field, *v}, parse_gem_requirement(*v),
                        "Bundler requires the version " + value + " names");
        return;
      }
      if (key.empty()) reqs += (reqs.empty() ? "" : ", ") + value;
    }
    if (reqs.empty()) {
      ctx_.note(rel, "ruby directive without a version literal; not read: " + str::quote(args));
      return;
    }
    ctx_.constraint("ruby", ConstraintKind::kSupport, {rel, "ruby", reqs}, parse_gem_requirement(reqs));
  }

  void source(const std::string& rel, std::string_view args) {
    auto lits = literals(args);
    if (lits.empty()) return;
    const std::string& url = lits.front().second;
    std::string host = url_host(url);
    if (host.empty()) {
      ctx_.warn(rel, "source " + str::quote(url) + " has no host");
      return;
    }
    ctx_.egress_url(url, EgressOrigin::kConfig, "gem source (Gemfile)", {rel, "source", url});
    if (host != "rubygems.org" && host != "index.rubygems.org")
      custom_source_ = true;
    else
      rubygems_source_ = true;
  }

  // `gem "pg", "~> 1.1"`, `gem "rails", github: "rails/rails"`.
  void gem(const std::string& rel, std::string_view args) {
    auto lits = literals(args);
    if (lits.empty() || !lits.front().first.empty()) return;
    const std::string name = lits.front().second;
    std::string reqs;
    for (std::size_t i = 1; i < lits.size(); ++i) {
      const auto& [key, value] = lits[i];
      if (key.empty())
        reqs += (reqs.empty() ? "" : ", ") + value;
      else if (key == "git" && !ssh_host(value).empty())
        ctx_.egress(ssh_host(value), EgressOrigin::kConfig, "git source of gem " + name + " over SSH",
                    Evidence{rel, "gem " + name + " git", value}, "", 22);
      else if (key == "git")
        ctx_.egress_url(value, EgressOrigin::kConfig, "git source of gem " + name,
                        {rel, "gem " + name + " git", value});
      else if (key == "github")
        ctx_.egress("github.com", EgressOrigin::kConfig, "git source of gem " + name,
                    Evidence{rel, "gem " + name + " github", value});
      else if (key == "source")
        ctx_.egress_url(value, EgressOrigin::kConfig, "gem source of " + name, {rel, "gem " + name + " source", value});
    }
    if (!ctx_.kb().package("gem", name)) return;
    PackageSignals& s = ctx_.package("gem", name);
    s.direct = true;
    s.evidence.push_back({rel, "gem", reqs.empty() ? name : name + " " + reqs});
    if (!reqs.empty())
      if (auto r = parse_gem_requirement(reqs); r && !r->unbounded_below())
        if (auto f = r->floor(); f && (!s.declared || *f < *s.declared)) s.declared = f;
  }

  // Gemfile.lock: sections at column 0, their keys at two spaces, specs at
  // four and a spec's dependencies at six. Streamed line by line.
  void lock(const std::string& rel) {
    auto path = ctx_.fs().open_path(rel, ctx_.fs().limits().max_lockfile_bytes);
    if (!path) return;
    std::ifstream in(*path, std::ios::binary);
    std::string line, section;
    struct Spec {
      std::optional<Version> version;
      std::string text;
      bool linux = false, ruby = false;
      std::set<std::string> platforms;
    };
    std::map<std::string, Spec> specs;
    std::set<std::string> direct, platforms;
    std::size_t lines = 0;
    bool any_section = false;
    while (std::getline(in, line)) {
      if (++lines > 2'000'000) {
        ctx_.warn(rel, "more than 2000000 lines; the rest is not read");
        break;
      }
      if (!line.empty() && line.back() == '\r') line.pop_back();
      if (line.empty()) continue;
      if (line.front() != ' ') {
        section = line;
        for (std::string_view known : {"GEM", "GIT", "PATH", "PLUGIN SOURCE", "PLATFORMS", "DEPENDENCIES",
                                       "RUBY VERSION", "BUNDLED WITH", "CHECKSUMS"})
          any_section = any_section || section == known;
        continue;
      }
      std::size_t indent = line.find_first_not_of(' ');
      std::string_view l = str::trim(line);
      if (section == "GEM" || section == "GIT" || section == "PATH" || section == "PLUGIN SOURCE") {
        if (indent == 2 && l.starts_with("remote: ")) {
          std::string url(str::trim(l.substr(8)));
          if (section == "PATH") continue;  // a directory of the repository
          // Bundler clones a git source with the git program.
          if (section == "GIT") ctx_.run_lib("git", "bundler:git-source", Evidence{rel, "GIT remote", url}, Purpose::kBuild);
          if (std::string ssh = ssh_host(url); !ssh.empty()) {
            ctx_.egress(ssh, EgressOrigin::kLockfile, "git source over SSH (Gemfile.lock)",
                        Evidence{rel, section + " remote", url}, "", 22);
            continue;
          }
          std::string host = url_host(url);
          if (host.empty()) {
            ctx_.warn(rel, section + " remote " + str::quote(url) + " has no host");
            continue;
          }
          ctx_.egress_url(url, EgressOrigin::kLockfile,
                          section == "GIT" ? "git source (Gemfile.lock)" : "gem source (Gemfile.lock)",
                          {rel, section + " remote", url});
          if (section == "GEM") {
            if (host != "rubygems.org" && host != "index.rubygems.org")
              custom_source_ = true;
            else
              rubygems_source_ = true;
          }
        } else if (indent == 4 && section != "PATH") {
          // "nokogiri (1.16.7-x86_64-linux)"
          auto open = l.find(" (");
          if (open == std::string_view::npos || !l.ends_with(')')) continue;
          std::string name(l.substr(0, open));
          std::string_view ver = l.substr(open + 2, l.size() - open - 3);
          std::string platform;
          if (auto dash = ver.find('-'); dash != std::string_view::npos) {
            platform = std::string(ver.substr(dash + 1));
            ver = ver.substr(0, dash);
          }
          Spec& s = specs[name];
          if (auto v = gem_version(ver); v && (!s.version || *v < *s.version)) s.version = v;
          s.text = std::string(ver);
          if (platform.empty())
            s.ruby = true;
          else
            s.platforms.insert(platform);
          if (linux_platform(platform)) s.linux = true;
        }
      } else if (section == "PLATFORMS" && indent == 2) {
        platforms.insert(std::string(l));
      } else if (section == "DEPENDENCIES" && indent == 2) {
        std::string name(l.substr(0, l.find_first_of(" !(")));
        direct.insert(name);
      } else if (section == "RUBY VERSION" && l.starts_with("ruby ")) {
        std::string v(str::trim(l.substr(5)));
        if (auto p = v.find('p'); p != std::string::npos) v = v.substr(0, p);  // "3.3.0p0"
        if (gem_segments(v).empty()) {
          ctx_.warn(rel, "RUBY VERSION " + str::quote(l) + " names no version");
          continue;
        }
        ctx_.constraint("ruby", ConstraintKind::kPin, {rel, "RUBY VERSION", std::string(l)}, parse_version_line(v),
                        "the Ruby the lock was resolved with");
      } else if (section == "BUNDLED WITH") {
        std::string v(l);
        if (gem_segments(v).empty()) {
          ctx_.warn(rel, "BUNDLED WITH " + str::quote(v) + " names no version");
          continue;
        }
        ctx_.constraint("bundler", ConstraintKind::kPin, {rel, "BUNDLED WITH", v}, parse_version_line(v),
                        "Bundler switches to the version that wrote the lock");
      }
    }
    if (!any_section) {
      ctx_.warn(rel, "no GEM, PLATFORMS or DEPENDENCIES section: not a Gemfile.lock; not used");
      return;
    }
    bool linux_locked = false;
    for (const auto& p : platforms)
      if (p == "ruby" || p.starts_with("x86_64-linux")) linux_locked = true;
    if (!platforms.empty() && !linux_locked)
      ctx_.warn(rel,
                "PLATFORMS has no x86_64-linux (nor ruby): a frozen `bundle install` on Linux fails; run "
                "`bundle lock --add-platform x86_64-linux`");
    for (const auto& [name, spec] : specs) {
      if (!ctx_.kb().package("gem", name)) continue;
      PackageSignals& s = ctx_.package("gem", name);
      if (spec.version && (!s.locked || *spec.version < *s.locked)) s.locked = spec.version;
      s.in_lock = true;
      s.direct = s.direct || direct.count(name) > 0;
      // A platform gem for linux x86_64: nothing compiles. Only the ruby
      // platform: the gem's source is built. Platform gems for other
      // systems only: Bundler falls back to the source gem on Linux.
      s.linux_wheel = s.linux_wheel || spec.linux;
      s.sdist_only = s.sdist_only || (!spec.linux);
      std::string what = spec.linux               ? " (platform gem for x86_64-linux)"
                         : spec.platforms.empty() ? " (ruby platform)"
                                                  : " (platform gems, none for x86_64-linux)";
      s.evidence.push_back({rel, "GEM specs " + name, spec.text + what});
    }
  }

  ScanContext& ctx_;
  bool custom_source_ = false;    // a gem source other than rubygems.org
  std::set<std::string> gemspecs_read_;  // the gemspecs a Gemfile loads, read once
  bool rubygems_source_ = false;  // rubygems.org named as a source
};

}  // namespace

Result<Range> parse_gem_requirement(std::string_view text) {
  std::string npm;
  for (auto part : str::split(text, ',')) {
    std::string_view p = str::trim(part);
    if (p.empty()) continue;
    std::string_view op;
    for (std::string_view o : {"~>", ">=", "<=", "!=", ">", "<", "="})
      if (p.starts_with(o)) {
        op = o;
        break;
      }
    std::string_view ver = str::trim(p.substr(op.size()));
    auto segs = gem_segments(ver);
    if (segs.empty()) return fail(ErrorCode::kInvalidArgument, "not a RubyGems requirement: " + str::quote(p));
    std::string v = segments_text(segs);
    if (op == "!=") continue;  // excludes one release; floors ignore it
    if (!npm.empty()) npm += ' ';
    if (op == "~>") {
      // ~> 3.2.1 → >=3.2.1 <3.3; ~> 3.2 → >=3.2 <4; ~> 3 → >=3 <4.
      std::vector<std::uint64_t> up(segs.begin(), segs.end());
      if (up.size() > 1) up.pop_back();
      up.back() += 1;
      npm += ">=" + v + " <" + segments_text(up);
    } else if (op.empty() || op == "=") {
      npm += "=" + v;
    } else {
      npm += std::string(op) + v;
    }
  }
  if (npm.empty()) return fail(ErrorCode::kInvalidArgument, "empty RubyGems requirement");
  return parse_npm_range(npm);
}

void scan_ruby(ScanContext& ctx) { RubyScanner(ctx).run(); }

}  // namespace strata::contract
