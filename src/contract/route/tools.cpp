#include "contract/route/tools.hpp"

#include <algorithm>
#include <array>
#include <utility>

namespace strata::contract::route {
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
       "https://github.com/astral-sh/python-build-standalone/releases (uv python install {version})",
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

}  // namespace

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
