// Reviewed expectations for the Ruby and PHP fixture repositories (a Rails
// app on PostgreSQL with platform gems, an older Rails app on MySQL with a
// ruby-platform lock, a Laravel app with its composer.lock, a Symfony app
// whose Dockerfile compiles its extensions), and the Gem and Composer
// version grammars.
#include "contract/scan/php_scanner.hpp"

#include <algorithm>

#include "contract/scan/ruby_scanner.hpp"
#include "fixture_support.hpp"

namespace strata::contract::testing {
namespace {

std::string gem_range(std::string_view text) {
  auto r = parse_gem_requirement(text);
  return r ? r->str() : "error: " + r.error().message();
}

std::string composer_range(std::string_view text) {
  auto r = parse_composer_constraint(text);
  return r ? r->str() : "error: " + r.error().message();
}

TEST(RubyVersions, GemRequirementsReadAsRubyGemsDoes) {
  EXPECT_EQ(gem_range("~> 3.2"), ">=3.2.0 <4.0.0");
  EXPECT_EQ(gem_range("~> 3.2.1"), ">=3.2.1 <3.3.0");
  EXPECT_EQ(gem_range("~> 3"), ">=3.0.0 <4.0.0");
  EXPECT_EQ(gem_range(">= 3.1, < 3.4"), ">=3.1.0 <3.4.0");
  EXPECT_EQ(gem_range("3.3.6"), "=3.3.6");
  EXPECT_EQ(gem_range("= 3.2.2"), "=3.2.2");
  EXPECT_EQ(gem_range(">= 3.0, != 3.0.1"), ">=3.0.0");
  EXPECT_TRUE(gem_range("jruby").starts_with("error: not a RubyGems requirement"));
  EXPECT_TRUE(gem_range("").starts_with("error: empty"));
}

TEST(PhpVersions, ComposerConstraintsReadAsComposerDoes) {
  EXPECT_EQ(composer_range("^8.2"), ">=8.2.0 <9.0.0");
  EXPECT_EQ(composer_range(">=8.1 <8.4"), ">=8.1.0 <8.4.0");
  EXPECT_EQ(composer_range(">=8.1,<8.4"), ">=8.1.0 <8.4.0");
  EXPECT_EQ(composer_range(">= 8.1"), ">=8.1.0");
  EXPECT_EQ(composer_range("~8.2.0"), ">=8.2.0 <8.3.0");
  EXPECT_EQ(composer_range("~8.2"), ">=8.2.0 <9.0.0");  // npm's ~8.2 would stop at 8.3
  EXPECT_EQ(composer_range("8.2.*"), ">=8.2.0 <8.3.0");
  EXPECT_EQ(composer_range("^7.4|^8.0"), ">=7.4.0 <8.0.0 || >=8.0.0 <9.0.0");
  EXPECT_EQ(composer_range("^8.1 || ^8.2"), ">=8.1.0 <9.0.0 || >=8.2.0 <9.0.0");
  EXPECT_EQ(composer_range("^8.2@dev"), ">=8.2.0 <9.0.0");
  EXPECT_EQ(composer_range("v8.2.26"), "=8.2.26");
  EXPECT_TRUE(composer_range("dev-main").starts_with("error: not a Composer version constraint"));
  EXPECT_TRUE(composer_range(" | ").starts_with("error: empty"));
}

TEST(RubyFixtures, RailsOnPostgresWithPlatformGems) {
  Contract c = scan_fixture("ruby-rails-pg");
  EXPECT_EQ(c.ecosystems, std::vector<std::string>{"ruby"});
  // Gemfile `ruby file: ".ruby-version"` makes .ruby-version's 3.3.6 the support.
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  EXPECT_EQ(ruby->floor, "3.3.6");
  EXPECT_EQ(ruby->satisfying, "=3.3.6");
  ASSERT_EQ(ruby->constraints.size(), 3u);
  EXPECT_EQ(ruby->constraints[1].source.field, "ruby file: .ruby-version");
  EXPECT_EQ(constraint_kind_name(ruby->constraints[1].kind), std::string("support"));
  EXPECT_EQ(ruby->constraints[2].source.value, "ruby 3.3.6p108");
  EXPECT_EQ(floors(c, "bundler")->pin, "=2.5.22");
  // pg compiles against libpq; psych >= 5 against the system's libyaml.
  EXPECT_EQ(build_of(c, "gem", "pg"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "gem:pg"));
  EXPECT_TRUE(required_by(c.run_libs, "libpq5", "gem:pg"));
  EXPECT_EQ(build_of(c, "gem", "psych"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libyaml-dev", "gem:psych"));
  EXPECT_TRUE(required_by(c.build_libs, "build-essential", "gem:bootsnap"));
  EXPECT_TRUE(required_by(c.build_libs, "ruby-dev", "gem:pg"));
  // Platform gems for x86_64-linux in the lock: nothing compiles, no libxml2 or SQLite headers.
  EXPECT_EQ(build_of(c, "gem", "nokogiri"), "prebuilt");
  EXPECT_EQ(build_of(c, "gem", "sqlite3"), "prebuilt");
  EXPECT_EQ(build_of(c, "gem", "ffi"), "prebuilt");
  EXPECT_EQ(lib(c.build_libs, "libsqlite3-dev"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "zlib1g-dev"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "libffi-dev"), nullptr);
  ASSERT_NE(native(c, "gem", "nokogiri"), nullptr);
  EXPECT_EQ(native(c, "gem", "nokogiri")->evidence.front().value, "1.16.8 (platform gem for x86_64-linux)");
  // ruby-vips loads libvips; mini_magick runs ImageMagick.
  EXPECT_TRUE(required_by(c.run_libs, "libvips42", "gem:ruby-vips"));
  EXPECT_TRUE(required_by(c.run_libs, "imagemagick", "gem:mini_magick"));
  EXPECT_EQ(native(c, "gem", "rails"), nullptr);  // pure Ruby
  EXPECT_TRUE(c.native_build_required);
  EXPECT_EQ(origin_of(c, "rubygems.org"), "config");
  EXPECT_EQ(origin_of(c, "index.rubygems.org"), "default");
  EXPECT_TRUE(c.warnings.empty());
}

TEST(RubyFixtures, OlderRailsOnMysqlWithARubyPlatformLock) {
  Contract c = scan_fixture("ruby-rails-mysql2");
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  // `ruby '~> 3.1'` is the support; .ruby-version (ruby-3.1.4) and the lock pin 3.1.4.
  EXPECT_EQ(ruby->floor, "3.1.0");
  EXPECT_EQ(ruby->satisfying, ">=3.1.0 <4.0.0");
  EXPECT_EQ(ruby->pin, "=3.1.4");
  EXPECT_EQ(ruby->provision, "=3.1.4");
  EXPECT_EQ(floors(c, "bundler")->pin, "=2.4.10");
  EXPECT_EQ(build_of(c, "gem", "mysql2"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "default-libmysqlclient-dev", "gem:mysql2"));
  EXPECT_TRUE(required_by(c.run_libs, "libmariadb3", "gem:mysql2"));
  // PLATFORMS ruby only: nokogiri 1.13 builds its bundled libxml2 (zlib, liblzma headers).
  EXPECT_EQ(build_of(c, "gem", "nokogiri"), "compile");
  EXPECT_EQ(native(c, "gem", "nokogiri")->certainty, Certainty::kInferred);
  EXPECT_TRUE(required_by(c.build_libs, "zlib1g-dev", "gem:nokogiri"));
  EXPECT_TRUE(required_by(c.build_libs, "liblzma-dev", "gem:nokogiri"));
  EXPECT_EQ(lib(c.build_libs, "libxml2-dev"), nullptr);  // not told to use the system's libxml2
  EXPECT_EQ(build_of(c, "gem", "ffi"), "compile");       // before 1.16: no native gem
  EXPECT_TRUE(required_by(c.build_libs, "libffi-dev", "gem:ffi"));
  EXPECT_EQ(build_of(c, "gem", "bcrypt"), "compile");
  EXPECT_EQ(build_of(c, "gem", "sassc"), "compile");
  EXPECT_EQ(build_of(c, "gem", "mini_magick"), "none");
  EXPECT_TRUE(required_by(c.run_libs, "imagemagick", "gem:mini_magick"));
  // The git source of administrate, in the Gemfile and the lock's GIT section.
  const EgressHost* gh = egress(c, "github.com");
  ASSERT_NE(gh, nullptr);
  ASSERT_EQ(gh->evidence.size(), 2u);
  EXPECT_EQ(gh->evidence[1].field, "GIT remote");
  EXPECT_EQ(origin_of(c, "rubygems.org"), "config");
}

TEST(RubyFixtures, AGemfileWithoutALock) {
  Contract c = scan_fixture("ruby-gemfile-forms");
  // `ruby File.read(".ruby-version").strip` reads the file as `file:` does.
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  ASSERT_EQ(ruby->constraints.size(), 2u);
  EXPECT_EQ(ruby->constraints[1].source.field, "ruby File.read(.ruby-version)");
  EXPECT_EQ(ruby->satisfying, "=3.2.2");
  EXPECT_EQ(floors(c, "bundler"), nullptr);  // no lock, no BUNDLED WITH
  // No lock: the Gemfile's requirement is the declared version.
  EXPECT_EQ(build_of(c, "gem", "pg"), "compile");
  EXPECT_EQ(native(c, "gem", "pg")->version, "1.4.0");
  EXPECT_EQ(native(c, "gem", "pg")->evidence.front().value, "pg >= 1.4, < 2.0");
  // .bundle/config forces the ruby platform, so nokogiri (whose native gems
  // would otherwise be used) compiles, against the system's libxml2/libxslt
  // as build.nokogiri says.
  const NativePackage* noko = native(c, "gem", "nokogiri");
  ASSERT_NE(noko, nullptr);
  EXPECT_EQ(build_kind_name(noko->build), std::string("compile"));
  EXPECT_EQ(noko->certainty, Certainty::kInferred);
  EXPECT_EQ(noko->evidence[1].file, ".bundle/config");
  EXPECT_TRUE(required_by(c.build_libs, "libxml2-dev", "gem:nokogiri"));
  EXPECT_TRUE(required_by(c.build_libs, "libxslt1-dev", "gem:nokogiri"));
  EXPECT_TRUE(required_by(c.run_libs, "libxml2", "gem:nokogiri"));
  // A scoped source adds its host and replaces nothing: rubygems.org stays.
  EXPECT_EQ(origin_of(c, "gems.contribsys.com"), "config");
  EXPECT_EQ(origin_of(c, "rubygems.org"), "config");
  EXPECT_EQ(origin_of(c, "index.rubygems.org"), "default");
  // An scp-like git source is SSH: port 22.
  const EgressHost* ssh = egress(c, "git.example.com");
  ASSERT_NE(ssh, nullptr);
  EXPECT_EQ(ssh->port, 22);
  EXPECT_TRUE(c.warnings.empty());
}

// gems.rb and gems.locked are Bundler's other names for the Gemfile and its lock.
TEST(RubyFixtures, GemsRbAndGemsLockedAreTheGemfileAndItsLock) {
  Contract c = scan_fixture("ruby-gems-rb");
  EXPECT_EQ(c.ecosystems, std::vector<std::string>{"ruby"});
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  EXPECT_EQ(ruby->floor, "3.2.0");  // gems.rb `ruby "~> 3.2"`
  EXPECT_EQ(ruby->pin, "=3.2.6");   // gems.locked RUBY VERSION
  EXPECT_EQ(floors(c, "bundler")->pin, "=2.5.23");
  EXPECT_EQ(build_of(c, "gem", "pg"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libpq-dev", "gem:pg"));
  EXPECT_EQ(origin_of(c, "rubygems.org"), "config");  // its `source` line
  EXPECT_TRUE(c.warnings.empty());
}

// What a Rails application's tests need beyond its gems: the browser its
// system tests drive (Firefox, windowed or not: Xvfb), git for a git gem, an
// FFI gem's library, programs the code runs, what CI installs first (not the
// services it starts), and the Dockerfile a compose file mounts the source
// into, which is a development image.
TEST(RubyFixtures, SystemTestsCiPackagesAndADevelopmentCompose) {
  Contract c = scan_fixture("ruby-rails-system-tests");
  EXPECT_TRUE(required_by(c.run_libs, "firefox-esr", "exec:firefox"));
  EXPECT_TRUE(required_by(c.run_libs, "xvfb", "exec:Xvfb"));
  const auto& firefox = lib(c.run_libs, "firefox-esr")->evidence;  // the Dockerfile's and the test setup's
  EXPECT_TRUE(std::any_of(firefox.begin(), firefox.end(), [](const Evidence& e) {
    return e.file == "test/application_system_test_case.rb" && e.field == "line 5";
  }));
  EXPECT_EQ(lib(c.run_libs, "chromium"), nullptr);
  EXPECT_NE(egress(c, "release-assets.githubusercontent.com")->reason.find("geckodriver"), std::string::npos);
  // The importmap's CDN pins are what the system tests' browser loads; a pin
  // the app serves itself ("turbo.min.js") reaches nothing.
  ASSERT_NE(egress(c, "ga.jspm.io"), nullptr);
  EXPECT_EQ(egress(c, "ga.jspm.io")->reason,
            "config/importmap.rb pins \"trix\" from it; the browser the system tests drive loads it");
  EXPECT_EQ(egress(c, "cdn.jsdelivr.net")->evidence.front().field, "line 6");
  EXPECT_EQ(egress(c, "cdn.old.example.com"), nullptr);  // in a trailing comment
  EXPECT_TRUE(required_by(c.run_libs, "git", "bundler:git-source"));
  EXPECT_TRUE(required_by(c.run_libs, "libarchive13", "gem:ffi-libarchive"));
  EXPECT_EQ(build_of(c, "gem", "openssl"), "compile");
  EXPECT_TRUE(required_by(c.build_libs, "libssl-dev", "gem:openssl"));
  EXPECT_TRUE(required_by(c.run_libs, "f3d", "exec:f3d"));
  EXPECT_TRUE(required_by(c.run_libs, "imagemagick", "exec:convert"));  // "convert #{path}…" up to the interpolation
  EXPECT_EQ(lib(c.run_libs, "not"), nullptr);  // connection.system(…) is a method, not Kernel#system
  EXPECT_EQ(lib(c.run_libs, "ffmpeg"), nullptr);  // inside =begin … =end
  // CI's installs: the cache-apt-pkgs action's list, a run step's and CircleCI's; not the servers.
  EXPECT_TRUE(required_by(c.build_libs, "libvips42", "ci:.github/workflows/ci.yml"));
  EXPECT_TRUE(required_by(c.build_libs, "imagemagick", "ci:.github/workflows/ci.yml"));
  EXPECT_TRUE(required_by(c.build_libs, "ghostscript", "ci:.github/workflows/ci.yml"));
  EXPECT_TRUE(required_by(c.build_libs, "libsqlite3-dev", "ci:.circleci/config.yml"));
  // What a test job downloads first: a GitHub release asset, from the hosts github.com redirects to.
  const auto& assets = egress(c, "objects.githubusercontent.com")->evidence;  // also geckodriver's
  EXPECT_TRUE(std::any_of(assets.begin(), assets.end(), [](const Evidence& e) {
    return e.file == ".github/workflows/ci.yml" && e.value.starts_with("wget -q https://github.com/bblanchon");
  }));
  // The release job builds packages, not the tests; so do a workflow that
  // runs for tags only (ship.yml) and a CircleCI job every workflow filters
  // to tags (compat): neither their packages nor their Ruby are the tests'.
  EXPECT_EQ(lib(c.build_libs, "rpm"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "gcc-aarch64-linux-gnu"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "lintian"), nullptr);
  EXPECT_EQ(lib(c.build_libs, "ncftp"), nullptr);
  // What git only recommends, and a git source's https clone needs.
  EXPECT_TRUE(required_by(c.run_libs, "ca-certificates", "deb:git"));
  for (const char* service : {"redis-server", "postgresql-16"}) {
    EXPECT_EQ(lib(c.build_libs, service), nullptr) << service;
    EXPECT_EQ(lib(c.run_libs, service), nullptr) << service;
  }
  // docker-compose.yml builds the Dockerfile and mounts `.` at /app: its
  // packages build and test the repository, and its Ruby is a development
  // environment's, which CI (CircleCI's cimg/ruby:3.3.6) tests too.
  EXPECT_TRUE(noted(c, "Dockerfile", "a development image: docker-compose.yml"));
  EXPECT_EQ(lib(c.run_libs, "firefox-esr")->purpose, Purpose::kBuild);
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  EXPECT_EQ(ruby->provision, "=3.3.6");
  EXPECT_EQ(ruby->provision_reason, "the version a development environment has, which CI tests too");
  EXPECT_EQ(ruby->constraints.back().source.field, "jobs.test.docker[0].image");
  EXPECT_EQ(ruby->tested, (std::vector<std::string>{"=3.3.6", ">=3.4.0 <3.5.0"}));
  EXPECT_TRUE(c.warnings.empty());
}

TEST(PhpFixtures, LaravelWithItsLock) {
  Contract c = scan_fixture("php-laravel");
  EXPECT_EQ(c.ecosystems, std::vector<std::string>{"php"});
  const RuntimeFloor* php = floors(c, "php");
  ASSERT_NE(php, nullptr);
  EXPECT_EQ(php->floor, "8.2.0");
  EXPECT_EQ(php->satisfying, ">=8.2.0 <9.0.0");
  EXPECT_EQ(php->pin, "=8.2.26");  // config.platform.php and the lock's platform-overrides
  EXPECT_EQ(php->provision, "=8.2.26");
  // The dependencies' highest floor, from the lock.
  EXPECT_TRUE(std::any_of(php->constraints.begin(), php->constraints.end(), [](const auto& k) {
    return k.source.field == "packages[laravel/framework].require.php";
  }));
  EXPECT_EQ(floors(c, "composer")->satisfying, ">=2.6.0 <3.0.0");           // plugin-api-version 2.6.0
  // ext-* of composer.json, the lock's platform and each package's require.
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-intl", "php:ext-intl"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-pgsql", "php:ext-pdo_pgsql"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-mbstring", "php:ext-mbstring"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-xml", "php:ext-dom"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-xml", "php:ext-xmlwriter"));
  // phpunit.xml runs the tests on SQLite: its PDO driver (the commented-out mysql is not read).
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-sqlite3", "php:ext-pdo_sqlite"));
  EXPECT_EQ(lib(c.run_libs, "php8.2-sqlite3")->evidence.front().field, "php.env.DB_CONNECTION");
  EXPECT_EQ(lib(c.run_libs, "php8.2-mysql"), nullptr);
  const SystemLib* mb = lib(c.run_libs, "php8.2-mbstring");
  ASSERT_NE(mb, nullptr);
  ASSERT_EQ(mb->evidence.size(), 2u);
  EXPECT_EQ(mb->evidence[0].field, "packages[laravel/framework].require.ext-mbstring");
  // ctype, tokenizer, openssl, json, fileinfo: php8.2-cli has them.
  for (const char* core : {"php:ext-ctype", "php:ext-tokenizer", "php:ext-openssl", "php:ext-json", "php:ext-fileinfo"})
    for (const auto& l : c.run_libs) EXPECT_EQ(std::count(l.required_by.begin(), l.required_by.end(), core), 0) << core;
  EXPECT_FALSE(c.native_build_required);
  EXPECT_EQ(origin_of(c, "repo.packagist.org"), "default");
  EXPECT_EQ(origin_of(c, "packagist.org"), "default");
  EXPECT_EQ(origin_of(c, "api.github.com"), "lockfile");
  EXPECT_EQ(origin_of(c, "codeload.github.com"), "lockfile");
  EXPECT_EQ(origin_of(c, "nova.laravel.com"), "config");  // the repository and its dist URL
  EXPECT_EQ(egress(c, "nova.laravel.com")->evidence.size(), 2u);
  // vendor/acme/legacy/composer.json is an installed package, not a project:
  // its php >=5.6 and unknown ext-mcrypt are not read.
  EXPECT_EQ(php->constraints.size(), 5u);
  EXPECT_TRUE(c.warnings.empty());
}

TEST(PhpFixtures, SymfonyDockerfileCompilesItsExtensionsIntoThePhpImagesPhpOnly) {
  Contract c = scan_fixture("php-symfony-docker");
  const RuntimeFloor* php = floors(c, "php");
  ASSERT_NE(php, nullptr);
  EXPECT_EQ(php->floor, "8.2.0");
  EXPECT_EQ(php->pin, ">=8.3.0 <8.4.0");  // FROM php:8.3-fpm-bookworm, the image stage
  // Debian's PHP has each as a package (or built in): that is the need.
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-intl", "php:ext-intl"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-pgsql", "php:ext-pdo_pgsql"));
  EXPECT_TRUE(required_by(c.run_libs, "php-redis", "php:ext-redis"));
  // docker-php-ext-install and pecl install compile into the php image's PHP:
  // recorded as what the router takes on a base whose PHP is not Debian's.
  for (const char* ext : {"intl", "zip", "pdo_pgsql", "opcache", "apcu", "redis"}) {
    const NativePackage* n = native(c, "php-ext", ext);
    ASSERT_NE(n, nullptr) << ext;
    EXPECT_EQ(build_of(c, "php-ext", ext), "prebuilt") << ext;
    EXPECT_EQ(n->fallback, "compile") << ext;
    ASSERT_TRUE(n->fallback_needs) << ext;
    EXPECT_NE(std::find(n->fallback_needs->commands.begin(), n->fallback_needs->commands.end(), "phpize"),
              n->fallback_needs->commands.end());
  }
  auto needs = [&](const char* ext) { return native(c, "php-ext", ext)->fallback_needs->build_libs; };
  EXPECT_EQ(needs("intl"), (std::vector<std::string>{"build-essential", "autoconf", "pkg-config", "libicu-dev"}));
  EXPECT_EQ(needs("pdo_pgsql"), (std::vector<std::string>{"build-essential", "autoconf", "pkg-config", "libpq-dev"}));
  EXPECT_EQ(native(c, "php-ext", "redis")->reason,
            "Debian's PHP has it as php-redis; Dockerfile compiles it with pecl install (a PECL extension) into the "
            "php image's own PHP");
  // Never Debian's php-dev: it would bring Debian's PHP beside the image's.
  EXPECT_EQ(lib(c.build_libs, "php-dev"), nullptr);
  EXPECT_FALSE(required_by(c.build_libs, "libicu-dev", "php-ext:intl"));
  // Dockerfile.frankenphp: install-php-extensions (`@composer` is not one).
  EXPECT_EQ(native(c, "php-ext", "gd")->fallback, "compile");
  EXPECT_EQ(native(c, "php-ext", "gd")->evidence.front().field, "install-php-extensions");
  EXPECT_EQ(native(c, "php-ext", "composer"), nullptr);
  EXPECT_EQ(origin_of(c, "repo.packagist.org"), "default");
  // The composer/composer:2-bin stage the image copies composer from: Composer 2 is tested.
  const RuntimeFloor* composer = floors(c, "composer");
  ASSERT_NE(composer, nullptr);
  EXPECT_EQ(composer->satisfying, ">=2.0.0 <3.0.0");
  EXPECT_EQ(composer->constraints.front().source.value, "composer/composer:2-bin");
}

TEST(PhpFixtures, APhpDebianLacksNamesTheExtensionPackagesOfItsOwnLine) {
  Contract c = scan_fixture("php-beyond-debian");
  EXPECT_EQ(floors(c, "php")->satisfying, ">=8.3.0 <8.4.0");
  // The packages of the project's own PHP line, as an archive with PHP 8.3 names them.
  EXPECT_TRUE(required_by(c.run_libs, "php8.3-intl", "php:ext-intl"));
  EXPECT_EQ(lib(c.run_libs, "php8.2-intl"), nullptr);
  // setup-php's extensions in CI (":opcache" turns one off). pcov is a PECL
  // package, which Debian names version-less for its 8.2; for 8.3 it is
  // php8.3-pcov, since a version-less php-pcov follows the archive's default PHP.
  EXPECT_TRUE(required_by(c.run_libs, "php8.3-gmp", "php:ext-gmp"));
  EXPECT_EQ(lib(c.run_libs, "php8.3-gmp")->evidence.front().field, "jobs.phpunit.steps[1].with.extensions");
  EXPECT_TRUE(required_by(c.run_libs, "php8.3-pcov", "php:ext-pcov"));
  EXPECT_EQ(lib(c.run_libs, "php-pcov"), nullptr);
  EXPECT_EQ(lib(c.run_libs, "php8.3-opcache"), nullptr);
  // setup-php's php-version is a version CI tests.
  EXPECT_EQ(floors(c, "php")->tested, std::vector<std::string>{">=8.3.0 <8.4.0"});
  EXPECT_TRUE(warned(c, "composer.json",
                     "require.php \"~8.3.0\" excludes Debian 12's PHP 8.2: the extension packages are named for PHP "
                     "8.3 (php8.3-*)"));
  EXPECT_EQ(c.warnings.size(), 1u);
}

// require.php ^8.4 excludes Debian's 8.2 and the Dockerfile pins php:8.5:
// the version provisioned is 8.5, so the extension packages are 8.5's, not
// those of the support's lowest line (8.4).
TEST(PhpFixtures, TheExtensionPackagesFollowTheProvisionedPhpLine) {
  Contract c = scan_fixture("php-dockerfile-line");
  const RuntimeFloor* php = floors(c, "php");
  ASSERT_NE(php, nullptr);
  // The tests install the dev packages too: phpunit's PHP >=8.4.1 bounds it.
  EXPECT_EQ(php->satisfying, ">=8.4.1 <9.0.0");
  EXPECT_TRUE(std::any_of(php->constraints.begin(), php->constraints.end(), [](const Constraint& k) {
    return k.source.file == "composer.lock" && k.source.field == "packages-dev[phpunit/phpunit].require.php";
  }));
  EXPECT_EQ(php->provision, ">=8.5.0 <8.6.0");
  EXPECT_TRUE(required_by(c.run_libs, "php8.5-intl", "php:ext-intl"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.5-pgsql", "php:ext-pdo_pgsql"));
  for (const auto& l : c.run_libs) EXPECT_FALSE(l.package.starts_with("php8.4-")) << l.package;
  // The Dockerfile's own -dev libraries are its compile's, not renamed.
  EXPECT_NE(lib(c.build_libs, "libicu-dev"), nullptr);
  EXPECT_TRUE(warned(c, "composer.json",
                     "require.php \"^8.4\" excludes Debian 12's PHP 8.2: the extension packages are named for PHP "
                     "8.5 (php8.5-*), the line the contract provisions"));
  // The lock's plugin API names Composer's line (2.6 and later 2.x); the
  // build stage's composer:2.8.4 is the release of it the repository runs.
  const RuntimeFloor* composer = floors(c, "composer");
  ASSERT_NE(composer, nullptr);
  EXPECT_EQ(composer->pin, ">=2.6.0 <3.0.0");
  EXPECT_EQ(composer->provision, "=2.8.4");
  EXPECT_TRUE(composer->provision_reason.ends_with(", at the release Dockerfile FROM=\"composer:2.8.4\" runs within it"))
      << composer->provision_reason;
}

// require.php ^8.2 admits Debian's 8.2, but the lock's symfony/string needs
// PHP 8.4: the support excludes 8.2, so the extension packages, Debian's
// version-less php-redis among them, are 8.4's.
TEST(PhpFixtures, ALockThatNeedsANewerPhpMovesTheExtensionPackagesToItsLine) {
  Contract c = scan_fixture("php-lock-beyond-debian");
  EXPECT_EQ(floors(c, "php")->satisfying, ">=8.4.0 <9.0.0");
  EXPECT_TRUE(required_by(c.run_libs, "php8.4-intl", "php:ext-intl"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.4-redis", "php:ext-redis"));
  for (const char* gone : {"php8.2-intl", "php-redis"}) EXPECT_EQ(lib(c.run_libs, gone), nullptr) << gone;
  EXPECT_TRUE(noted(c, "composer.json",
                    "the php packages the project needs are named for php 8.4 (php8.4-*): its supported versions "
                    "(>=8.4.0 <9.0.0) exclude 8.2"));
  // Statements that contradict each other move nothing: config.platform.php
  // 8.1.0 below a locked package's ^8.4 keeps Debian's names.
  Contract conflict = scan_fixture("php-lock-platform-conflict");
  EXPECT_FALSE(floors(conflict, "php")->conflicts.empty());
  EXPECT_TRUE(required_by(conflict.run_libs, "php8.2-intl", "php:ext-intl"));
  // A support that admits 8.2 keeps Debian's names whatever CI or an image
  // runs (the Symfony fixture's php:8.3 image: php8.2-intl, php-redis).
  Contract symfony = scan_fixture("php-symfony-docker");
  EXPECT_TRUE(required_by(symfony.run_libs, "php8.2-intl", "php:ext-intl"));
  EXPECT_TRUE(required_by(symfony.run_libs, "php-redis", "php:ext-redis"));
}

// Programs PHP code runs (exec, Symfony Process; not PDO::exec) and the
// coverage driver CI loads.
// config.platform.php below Debian 12's 8.2 is the oldest PHP the lock
// installs on: where require.php and every locked package admit 8.2, Debian's
// PHP installs the same lock and is what is provisioned. One locked package
// that stops before 8.2 keeps the platform's own line.
TEST(PhpFixtures, APlatformBelowDebiansPhpIsProvisionedOnDebiansLine) {
  Contract c = scan_fixture("php-platform-below-debian");
  const RuntimeFloor* php = floors(c, "php");
  ASSERT_NE(php, nullptr);
  EXPECT_EQ(php->provision, ">=8.2.0 <8.3.0");
  EXPECT_EQ(php->floor, "7.4.0");
  bool said = false;
  for (const auto& k : php->constraints)
    said |= k.source.field == "config.platform.php" && k.source.value == "7.4" && k.range == ">=8.2.0 <8.3.0" &&
            k.note.ends_with("require.php and every locked package admit Debian 12's PHP 8.2, which installs the same lock");
  EXPECT_TRUE(said);
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-gd", "php:ext-gd"));

  Contract bound = scan_fixture("php-platform-lock-bound");
  ASSERT_NE(floors(bound, "php"), nullptr);
  EXPECT_EQ(floors(bound, "php")->provision, ">=7.4.0 <7.5.0");
  // Without a lock there is nothing to check the packages against: the platform stays.
  Contract lockless = scan_fixture("php-platform-no-lock");
  ASSERT_NE(floors(lockless, "php"), nullptr);
  EXPECT_EQ(floors(lockless, "php")->provision, ">=7.4.0 <7.5.0");
}

// Laravel's DB_CONNECTION names a connection of config/database.php: the
// tests' PDO driver is that connection's ('testing' → sqlite), not the name.
TEST(PhpFixtures, ALaravelTestConnectionIsReadThroughConfigDatabase) {
  Contract c = scan_fixture("php-laravel-test-connection");
  ASSERT_TRUE(required_by(c.run_libs, "php8.2-sqlite3", "php:ext-pdo_sqlite"));
  const SystemLib* lib = nullptr;
  for (const auto& l : c.run_libs)
    if (l.package == "php8.2-sqlite3") lib = &l;
  ASSERT_NE(lib, nullptr);
  EXPECT_EQ(lib->evidence.front().value, "testing (config/database.php connection \"testing\": driver sqlite)");
  EXPECT_FALSE(required_by(c.run_libs, "php8.2-mysql", "php:ext-pdo_mysql"));
  EXPECT_TRUE(c.warnings.empty());
}

TEST(PhpFixtures, ProgramsTheCodeRunsAndTheCoverageDriver) {
  Contract c = scan_fixture("php-exec-programs");
  EXPECT_TRUE(required_by(c.run_libs, "ghostscript", "exec:gs"));
  EXPECT_TRUE(required_by(c.run_libs, "poppler-utils", "exec:pdftoppm"));
  EXPECT_EQ(lib(c.run_libs, "php-pcov")->evidence.front().field, "jobs.phpunit.steps[1].with.coverage");
  EXPECT_EQ(c.run_libs.size(), 3u);  // $this->pdo->exec("DELETE …") runs no program, nor a /* … */ comment
}

TEST(PhpFixtures, MalformedManifestsAreWarningsNamingTheFile) {
  Contract c = scan_fixture("php-malformed");
  EXPECT_TRUE(warned(c, "composer.json", "malformed JSON"));
  EXPECT_TRUE(warned(c, "composer.lock", "packages is not a list"));
  EXPECT_TRUE(warned(c, "composer.lock", "PHP extension frobnicate is not in the knowledge base"));
  EXPECT_TRUE(warned(c, "composer.lock", "plugin-api-version"));
  EXPECT_TRUE(warned(c, "Gemfile.lock", "no GEM, PLATFORMS or DEPENDENCIES section"));
  EXPECT_TRUE(warned(c, "sub/Gemfile.lock", "PLATFORMS has no x86_64-linux"));
  EXPECT_TRUE(noted(c, ".ruby-version", "names no CRuby release"));
  EXPECT_TRUE(warned(c, "composer.lock", "platform-overrides.php: cannot read"));
  ASSERT_NE(floors(c, "php"), nullptr);  // still a PHP project, at no version anything states
  EXPECT_TRUE(floors(c, "php")->floor.empty());
}

// A test job's steps include those of the repository's own composite action
// (`uses: ./.github/actions/setup`): what it installs and the Ruby it sets up,
// with the action file as evidence, and the script a step runs (bin/playwright,
// which runs npx: Node and the npm registry). `${{ inputs.X }}` in the
// action is what the calling step's `with:` gives, else the input's default.
// NodeSource's repository names the Node line an image installs, through
// ENV, an assignment earlier in the same RUN line, or literally; setup_lts.x
// names none. `corepack prepare yarn@X` is the Yarn the image runs.
TEST(RubyFixtures, NodeSourceLinesAndCorepackVersionsInAnImage) {
  Contract c = scan_fixture("ruby-nodesource-corepack");
  const RuntimeFloor* node = floors(c, "node");
  ASSERT_NE(node, nullptr);
  ASSERT_EQ(node->constraints.size(), 2u);
  EXPECT_EQ(node->constraints[0].source.file, "Dockerfile");
  // ENV over continuation lines, a quoted value, and $NODE beside $NODE_MAJOR.
  EXPECT_EQ(node->constraints[0].range, ">=22.0.0 <23.0.0");
  EXPECT_EQ(node->constraints[1].source.file, "Dockerfile.tools");
  EXPECT_EQ(node->constraints[1].range, ">=20.0.0 <21.0.0");  // NODE_LINE=20 && curl …/setup_$NODE_LINE.x
  EXPECT_EQ(node->provision, ">=22.0.0 <23.0.0");
  const RuntimeFloor* yarn = floors(c, "yarn");
  ASSERT_NE(yarn, nullptr);
  EXPECT_EQ(yarn->provision, "=1.22.22");
  EXPECT_EQ(yarn->constraints.front().note, "corepack prepare puts yarn@1.22.22 on PATH");
  ASSERT_NE(floors(c, "pnpm"), nullptr);  // `corepack pnpm@9.12.0 install`
  EXPECT_EQ(floors(c, "pnpm")->provision, "=9.12.0");
  EXPECT_TRUE(c.warnings.empty());
}

// `gemspec` in the Gemfile loads the engine's gemspec: its
// required_ruby_version is the Ruby the project supports (the floor), while
// .ruby-version stays the one to install. The headless gem runs Xvfb.
TEST(RubyFixtures, AGemspecsRequiredRubyVersionAndTheHeadlessGem) {
  Contract c = scan_fixture("ruby-engine-gemspec");
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  ASSERT_EQ(ruby->constraints.size(), 2u);
  EXPECT_EQ(ruby->constraints[1].source.file, "crm_engine.gemspec");
  EXPECT_EQ(ruby->constraints[1].source.field, "line 7 required_ruby_version");
  EXPECT_EQ(ruby->constraints[1].range, ">=3.1.0 <4.1.0");
  EXPECT_EQ(ruby->floor, "3.1.0");
  EXPECT_EQ(ruby->provision, "=3.4.5");
  EXPECT_TRUE(required_by(c.run_libs, "xvfb", "gem:headless"));
  EXPECT_TRUE(c.warnings.empty());
  // Bundler.load_gemspec(File.expand_path('crm.gemspec', __dir__)), past a commented-out line.
  Contract loaded = scan_fixture("ruby-load-gemspec");
  ASSERT_NE(floors(loaded, "ruby"), nullptr);
  ASSERT_EQ(floors(loaded, "ruby")->constraints.size(), 1u);
  EXPECT_EQ(floors(loaded, "ruby")->constraints[0].source.field, "line 5 required_ruby_version");
  EXPECT_EQ(floors(loaded, "ruby")->floor, "3.1.0");
}

// setup-php's extension names: `sqlite` is sqlite3; pspell and enchant are
// Debian's php8.2-pspell and php8.2-enchant.
TEST(PhpFixtures, SetupPhpExtensionsIncludingItsAliases) {
  Contract c = scan_fixture("php-setup-php-extensions");
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-sqlite3", "php:ext-sqlite3"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-pspell", "php:ext-pspell"));
  EXPECT_TRUE(required_by(c.run_libs, "php8.2-enchant", "php:ext-enchant"));
  EXPECT_TRUE(required_by(c.build_libs, "aspell", "ci:.github/workflows/tests.yml"));
  EXPECT_TRUE(c.warnings.empty());
}

TEST(RubyFixtures, ACompositeActionsStepsAreTheJobs) {
  Contract c = scan_fixture("ruby-ci-composite");
  EXPECT_TRUE(required_by(c.build_libs, "libvips42", "ci:.github/actions/setup/action.yml"));
  const RuntimeFloor* ruby = floors(c, "ruby");
  ASSERT_NE(ruby, nullptr);
  EXPECT_EQ(ruby->tested, (std::vector<std::string>{"=3.3.6"}));  // the caller's with: ruby-version
  EXPECT_EQ(ruby->constraints.front().source.field, "runs.steps[1].with.ruby-version");
  const RuntimeFloor* node = floors(c, "node");
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->tested, (std::vector<std::string>{">=22.0.0 <23.0.0"}));  // the input's default
  // (bin/playwright's npx needs Node too; with a version stated, that is the entry.)
  EXPECT_EQ(origin_of(c, "registry.npmjs.org"), "install-time");
  EXPECT_TRUE(c.warnings.empty());
}

}  // namespace
}  // namespace strata::contract::testing
