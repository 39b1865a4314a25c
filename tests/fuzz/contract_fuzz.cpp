// Fuzz target: the repository files contract scan reads (package.json,
// lockfiles (Gemfile.lock and composer.lock too), TOML manifests, go.mod,
// Gemfile, composer.json, version files, and the build files and
// sources read for commands: a Dockerfile, a workflow, setup.py, a Node
// helper and its caller, an entry script; pom.xml, Gradle scripts and the
// wrapper's properties, .sdkmanrc, mix.exs/mix.lock, global.json, a
// .csproj, Directory.Build.props, nuget.config, libman.json; test code naming
// Testcontainers images, a script a CI test job runs). The first byte picks
// the file name, the rest is its content; the file is scanned in a
// repository of its own, and the contract must come out as JSON that parses
// and as YAML, whatever bytes (UTF-8 or not) went in.
#include <unistd.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "contract/scan/scan.hpp"
#include "contract/model/serialize.hpp"

namespace {

// New names go at the end: a seed's first byte keeps naming the same file.
constexpr std::array<const char*, 59> kFiles = {
    "package.json", "package-lock.json", "pnpm-lock.yaml", "yarn.lock",      "bun.lock",     "pyproject.toml",
    "Cargo.toml",   "Cargo.lock",        "go.mod",         "go.work",        "mise.toml",    ".tool-versions",
    ".nvmrc",       "uv.lock",           "poetry.lock",    "requirements.txt", "Dockerfile",
    ".github/workflows/ci.yml", "setup.py", "src/lib/Util.js", "docker-entrypoint.sh",
    "Gemfile.lock", "Gemfile", "composer.json", "composer.lock", ".ruby-version",
    // The JVM, Elixir and .NET manifests (pugixml, Gradle patterns, mix, JSON with comments).
    "pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle.kts", "gradle/wrapper/gradle-wrapper.properties",
    ".sdkmanrc", "mix.exs", "mix.lock", "global.json", "src/App/App.csproj", "Directory.Build.props", "nuget.config",
    // Read only beside their project's manifest, which the harness writes with them (kCompanions).
    "config/config.exs", ".github/workflows/php.yml",
    // Compose files, CircleCI, version catalogs, system tests, PHP and Elixir sources (issue 33's second round).
    "docker-compose.yml", ".circleci/config.yml", "gradle/libs.versions.toml", "test/application_system_test_case.rb",
    "app/Runner.php", "lib/app/runner.ex",
    // Test code naming Testcontainers images, and a script a CI test job runs (issue 33's fourth round).
    "src/test/java/AppIT.java", "ci/test.sh",
    // LibMan's manifest, and a Dockerfile below the root (its own build context or not).
    "src/Web/libman.json", "docker/Dockerfile", "gradle/gradle-daemon-jvm.properties", "mise.lock",
    // importmap-rails' pins, read when the system tests drive a browser; PHPUnit's configuration.
    "config/importmap.rb", "phpunit.xml",
    // Gradle properties a toolchain names, a Laravel app's connections, Heroku's buildpack configurations.
    "gradle.properties", "config/database.php", "elixir_buildpack.config", "phoenix_static_buildpack.config",
    // A gemspec the Gemfile loads.
    "app.gemspec"};

// A file a scanner reads only in a project of its kind, or only when
// another file leads to it: that file, with the least content that does.
struct Companion {
  const char* file;
  const char* manifest;
  const char* content;
  const char* also = nullptr;  // a second file it needs, with its content
  const char* also_content = nullptr;
};
constexpr std::array<Companion, 14> kCompanions = {{
    {"src/Web/libman.json", "src/Web/Web.csproj", "<Project Sdk=\"Microsoft.NET.Sdk.Web\"/>\n"},
    {"config/config.exs", "mix.exs", "{}\n"},
    {".github/workflows/php.yml", "composer.json", "{}\n"},
    {"gradle/libs.versions.toml", "build.gradle.kts", "{}\n"},
    {"test/application_system_test_case.rb", "Gemfile", "{}\n"},
    {"src/test/java/AppIT.java", "package.json", "{\"devDependencies\": {\"testcontainers\": \"10.0.0\"}}\n"},
    {"ci/test.sh", ".github/workflows/test.yml",
     "on: push\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - run: bash ci/test.sh && mix test\n"},
    {"config/importmap.rb", "Gemfile", "source \"https://rubygems.org\"\n", "test/application_system_test_case.rb",
     "class ApplicationSystemTestCase\n  driven_by :selenium, using: :headless_chrome\nend\n"},
    {"phpunit.xml", "composer.json", "{}\n"},
    {"gradle.properties", "build.gradle",
     "java { toolchain { languageVersion = JavaLanguageVersion.of(javaVersion.toInteger()) } }\n"},
    {"config/database.php", "composer.json", "{}\n", "phpunit.xml",
     "<phpunit><php><env name=\"DB_CONNECTION\" value=\"testing\"/></php></phpunit>\n"},
    {"elixir_buildpack.config", "mix.exs", "{}\n"},
    {"phoenix_static_buildpack.config", "mix.exs", "{}\n"},
    {"app.gemspec", "Gemfile", "source 'https://rubygems.org'\ngemspec\n"},
}};

const std::filesystem::path& repo_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("strata-fuzz-contract-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
  }();
  return dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto& dir = repo_dir();
  for (const auto* name : kFiles) std::filesystem::remove(dir / name);
  for (const auto& c : kCompanions) {
    std::filesystem::remove(dir / c.manifest);
    if (c.also) std::filesystem::remove(dir / c.also);
  }
  {
    const char* chosen = kFiles[data[0] % kFiles.size()];
    for (const auto& c : kCompanions)
      if (std::string_view(c.file) == chosen) {
        std::filesystem::create_directories((dir / c.manifest).parent_path());
        std::ofstream(dir / c.manifest) << c.content;
        if (c.also) {
          std::filesystem::create_directories((dir / c.also).parent_path());
          std::ofstream(dir / c.also) << c.also_content;
        }
      }
    const auto file = dir / chosen;
    std::filesystem::create_directories(file.parent_path());
    std::ofstream out(file, std::ios::binary);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  auto contract = strata::contract::scan_repository(dir);
  if (!contract) return 0;
  std::string json = strata::contract::to_json(*contract);
  if (nlohmann::json::parse(json, nullptr, false).is_discarded()) __builtin_trap();
  (void)strata::contract::to_yaml(*contract);  // only that it does not crash
  return 0;
}
