#include "contract/route/tools.hpp"

#include <algorithm>
#include <array>
#include <utility>

#include "layer/toolchain/release.hpp"
#include "util/strings.hpp"

namespace strata::contract::route {
namespace toolchain = layer::toolchain;
namespace {

const std::vector<ToolInfo>& tools() {
  static const std::vector<ToolInfo> kTools = {
      {"node", {"nodejs"}, "node", "", "https://nodejs.org/dist/v{version}/node-v{version}-linux-{arch}.tar.xz",
       {"nodejs.org"}},
      {"npm", {"npm"}, "npm", "npm ships with node; `npm install -g npm@{version}` when older", "", {}},
      {"pnpm", {}, "pnpm", "corepack or `npm install -g pnpm@{version}`", "", {}},
      {"yarn", {}, "yarn", "corepack or `npm install -g yarn@{version}`", "", {}},
      {"bun", {}, "bun", "`npm install -g bun@{version}`", "", {}},
      {"python", {"python3.{minor}", "python3"}, "python3", "",
       "https://github.com/astral-sh/python-build-standalone/releases/download/{release}/"
       "cpython-{version}+{release}-{arch}-unknown-linux-gnu-install_only.tar.gz",
       {"github.com", "release-assets.githubusercontent.com", "objects.githubusercontent.com"}},
      {"uv", {}, "uv", "`pip install uv=={version}` into the project's venv", "", {}},
      {"poetry", {}, "poetry", "`pip install poetry=={version}` into a venv", "", {}},
      {"pip", {"python3-pip"}, "pip", "the venv's own pip (`python3 -m venv`, `pip install -U pip`)", "", {}},
      {"pipenv", {}, "pipenv", "`pip install pipenv=={version}` into a venv", "", {}},
      {"go", {"golang-go"}, "go", "", "https://go.dev/dl/go{version}.linux-{arch}.tar.gz", {"go.dev", "dl.google.com"}},
      {"rust", {"rustc"}, "rustc", "", "https://static.rust-lang.org/dist/rust-{version}-{arch}-unknown-linux-gnu.tar.xz",
       {"static.rust-lang.org"}},
      {"cargo", {"cargo"}, "cargo", "rustup installs cargo with the Rust toolchain", "", {}},
      {"cmake", {"cmake"}, "cmake", "", "", {}},
      {"meson", {"meson"}, "meson", "`pip install meson=={version}` into a venv", "", {}},
      // Debian 12 has Ruby 3.1 and PHP 8.2 only; neither has a task toolchain
      // (no official relocatable Linux build), so a version the archive lacks
      // is an unrouted row that says so.
      {"ruby", {"ruby"}, "ruby", "", "", {}},
      {"bundler", {"bundler"}, "bundle", "`gem install bundler -v {version}`", "", {}},
      {"php", {"php{major}.{minor}-cli", "php-cli"}, "php", "", "", {}},
      {"composer", {"composer"}, "composer",
       "Debian's composer, then `composer self-update {version}` (getcomposer.org)", "", {}},
      // {major}: the floor's feature release (Debian 12 has openjdk-17 only);
      // a release the archive lacks is Eclipse Temurin's JDK (Adoptium).
      {"java", {"openjdk-{major}-jdk-headless"}, "java", "",
       "https://api.adoptium.net/v3/binary/latest/{major}/ga/linux/{arch}/jdk/hotspot/normal/eclipse",
       {"api.adoptium.net", "github.com", "release-assets.githubusercontent.com", "objects.githubusercontent.com"}},
      {"maven", {"maven"}, "mvn", "", "", {}},
      {"gradle", {"gradle"}, "gradle", "", "", {}},
      {"elixir", {"elixir"}, "elixir", "", "", {}},
      {"erlang", {"erlang-nox"}, "erl", "", "", {}},  // the OTP without X11 (erlang would pull in wx)
      // Debian has no .NET SDK: always Microsoft's SDK archive, which loads
      // ICU (always: .NET has no ICU-less default), OpenSSL, Kerberos' GSSAPI,
      // zlib and the C++ runtime from the system — Microsoft's dependency list
      // for Debian 12 ("Install .NET on Debian", as of 2026-12-05).
      {"dotnet", {}, "dotnet", "",
       "https://builds.dotnet.microsoft.com/dotnet/Sdk/{version}/dotnet-sdk-{version}-linux-{arch}.tar.gz",
       {"builds.dotnet.microsoft.com"},
       {"libc6", "libgcc-s1", "libgssapi-krb5-2", "libicu72", "libssl3", "libstdc++6", "zlib1g"}},
  };
  return kTools;
}

constexpr std::array<std::pair<std::string_view, std::string_view>, 13> kCommandPackages = {{
    {"cc", "gcc"},
    {"gcc", "gcc"},
    {"c++", "g++"},
    {"g++", "g++"},
    {"make", "make"},
    {"python", "python3"},
    {"python3", "python3"},
    {"ninja", "ninja-build"},
    {"node", "nodejs"},
    {"go", "golang-go"},
    {"rustc", "rustc"},
    {"pip", "python3-pip"},
    {"pip3", "python3-pip"},
}};

// The download under a source's base, per tool (the base itself is layer::toolchain's).
struct Release {
  std::string_view tool, path;
};
constexpr std::array<Release, 6> kReleases = {{
    {"node", "/v{version}/node-v{version}-linux-{arch}.tar.xz"},
    {"go", "/go{version}.linux-{arch}.tar.gz"},
    {"rust", "/dist/rust-{version}-{arch}-unknown-linux-gnu.tar.xz"},
    {"python", "/cpython-{version}+{release}-{arch}-unknown-linux-gnu-install_only.tar.gz"},
    // The API's redirect to the feature release's newest GA JDK ({major}: the floor's).
    {"java", "/v3/binary/latest/{major}/ga/linux/{arch}/jdk/hotspot/normal/eclipse"},
    {"dotnet", "/Sdk/{version}/dotnet-sdk-{version}-linux-{arch}.tar.gz"},
}};

const Release* release_of(std::string_view tool) {
  for (const auto& r : kReleases)
    if (r.tool == tool) return &r;
  return nullptr;
}

bool digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "python3.11" → true for prefix "python3." and suffix "".
bool versioned(std::string_view p, std::string_view prefix, std::string_view suffix) {
  if (!p.starts_with(prefix) || !p.ends_with(suffix) || p.size() <= prefix.size() + suffix.size()) return false;
  return digits(p.substr(prefix.size(), p.size() - prefix.size() - suffix.size()));
}

}  // namespace

// The route's view of a layer::toolchain source: its base, the download
// URL pattern under it, and the hosts a download reaches.
std::optional<ToolchainSource> from_source(std::string_view tool, const toolchain::Source& src) {
  const Release* r = release_of(tool);
  if (!r) return std::nullopt;
  std::string path(src.kind == toolchain::Source::Kind::kNpm ? std::string_view("/node-linux-{arch}/-/node-linux-{arch}-{version}.tgz")
                                                             : r->path);
  if (tool == "python") {  // the release tag is the base's last component
    std::string tag = src.url.substr(src.url.rfind('/') + 1);
    for (auto at = path.find("{release}"); at != std::string::npos; at = path.find("{release}"))
      path.replace(at, 9, tag);
  }
  return ToolchainSource{src.describe(), src.url + path, toolchain::source_hosts(tool, src)};
}

std::optional<ToolchainSource> official_toolchain_source(std::string_view tool) {
  if (!toolchain::is_toolchain_tool(tool)) return std::nullopt;
  return from_source(tool, toolchain::official_source(tool));
}

Result<ToolchainSource> toolchain_source(std::string_view tool, std::string_view value) {
  auto src = toolchain::parse_source(tool, value);
  if (!src) {
    // The caller names the value; keep only why.
    const std::string& m = src.error().message();
    auto colon = m.find(": ");
    return fail(ErrorCode::kInvalidArgument, colon == std::string::npos ? m : m.substr(colon + 2));
  }
  return *from_source(tool, *src);
}

std::optional<std::string> package_of_runtime(std::string_view p) {
  if (p == "python3" || p == "python3-dev" || p == "python3-venv" || p == "python3-pip" || p == "python3-distutils" ||
      versioned(p, "python3.", "") || versioned(p, "python3.", "-dev") || versioned(p, "python3.", "-venv") ||
      p == "libpython3-dev" || versioned(p, "libpython3.", "-dev"))
    return "python";
  if (p == "nodejs" || p == "nodejs-dev" || p == "libnode-dev" || p == "npm" || p == "node-gyp") return "node";
  if (p == "golang-go" || (p.starts_with("golang-1.") && p.size() > 9 && p[9] >= '0' && p[9] <= '9')) return "go";
  if (p == "rustc" || p == "cargo") return "rust";
  if (p == "ruby" || p == "ruby-dev" || (p.starts_with("ruby3.") && (p.ends_with("-dev") || digits(p.substr(6)))))
    return "ruby";
  if (p == "php-cli" || p == "php-dev" || (p.starts_with("php8.") && (p.ends_with("-cli") || p.ends_with("-dev"))))
    return "php";
  if (p.starts_with("openjdk-") && (p.ends_with("-jdk") || p.ends_with("-jdk-headless") || p.ends_with("-jre") ||
                                    p.ends_with("-jre-headless")))
    return "java";
  return std::nullopt;
}

std::optional<std::string> command_of_runtime(std::string_view c) {
  if (c == "python3" || c == "python" || c == "pip" || c == "pip3") return "python";
  if (c == "node" || c == "npm" || c == "npx") return "node";
  if (c == "go" || c == "gofmt") return "go";
  if (c == "rustc" || c == "cargo") return "rust";
  if (c == "ruby" || c == "gem") return "ruby";
  if (c == "php" || c == "phpize") return "php";
  if (c == "java" || c == "javac") return "java";
  if (c == "dotnet") return "dotnet";
  return std::nullopt;
}

std::string_view pending_toolchain(std::string_view tool) {
  if (tool == "elixir" || tool == "erlang")
    return "Elixir and Erlang/OTP release builds (builds.hex.pm) are not yet a toolchain kind strata downloads: use a "
           "base image with them (hexpm/elixir:<elixir>-erlang-<otp>-debian-bookworm-…, elixir:<version>) or install "
           "them in the task";
  return {};
}

const ToolInfo* tool_info(std::string_view tool) {
  for (const auto& t : tools())
    if (t.tool == tool) return &t;
  return nullptr;
}

std::string command_package(std::string_view command) {
  for (const auto& [c, p] : kCommandPackages)
    if (c == command) return std::string(p);
  return std::string(command);
}

const std::vector<std::string>& toolchain_commands() {
  static const std::vector<std::string> kCommands = {"cc", "make"};
  return kCommands;
}

bool is_toolchain_command(std::string_view command) {
  return command == "cc" || command == "gcc" || command == "make";
}

bool is_toolchain_package(std::string_view package) { return package == "build-essential"; }

}  // namespace strata::contract::route
