// What the router knows about each tool a contract can put a floor on: the
// Debian packages that carry it (for the overlay), the command it puts on
// PATH (to spot a stale copy shadowing a task toolchain), whether the
// project's own package manager bootstraps it (npm/pnpm/yarn via npm or
// corepack, uv/poetry/pip into a venv, cargo with rustup), and where a
// pinned release comes from when neither the base nor the archive has it
// (URL pattern and the egress hosts it needs). Also which Debian package
// puts a command on PATH. Static tables; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::contract::route {

struct ToolInfo {
  std::string_view tool;
  std::vector<std::string_view> debian;  // packages, preferred first ("python3.{minor}": the floor's minor)
  std::string_view command;              // on PATH; "" when none
  std::string_view bootstrap;            // how the project installs it itself; "" when it cannot
  std::string_view url;                  // the official task toolchain download, {version} and {arch}; "" when none
  std::vector<std::string_view> hosts;   // the url's hosts
  // Debian 12 packages the task toolchain's own programs load, which its
  // archive does not carry (the vendor's list); rows of the plan with it.
  std::vector<std::string_view> libs{};
};

// Where a task toolchain is downloaded from: the official release site, a
// mirror with its layout (`--toolchain-source go=https://mirror/go`), or for
// node the npm registry's node-linux-<arch> packages (`node=npm`,
// `node=npm:https://registry.example/`).
struct ToolchainSource {
  std::string base;                // "https://nodejs.org/dist", "npm:https://registry.npmjs.org", a mirror URL
  std::string url;                 // the release download: {version}, {arch} ({release}: python-build-standalone's tag)
  std::vector<std::string> hosts;  // what the download reaches: the official hosts, or the mirror's (registry's) host
};

// The official source of `tool`'s releases; nullopt for a tool with no task toolchain.
std::optional<ToolchainSource> official_toolchain_source(std::string_view tool);

// The source `value` names for `tool`: "npm" or "npm:URL" (node only), or
// an https:// or http:// base URL with the official layout under it. An
// error (kInvalidArgument) says what is wrong; the caller names the value
// ("--toolchain-source node=ftp://x: not an https:// or http:// URL …").
Result<ToolchainSource> toolchain_source(std::string_view tool, std::string_view value);

// Packages and commands of the archive that are a runtime's own pieces
// (python3-dev for python, npm for node): when the runtime comes from a
// task toolchain, the toolchain carries them and Debian's must not be mixed
// in. `package_of_runtime`/`command_of_runtime` name the runtime; nullopt
// for anything else.
std::optional<std::string> package_of_runtime(std::string_view package);
std::optional<std::string> command_of_runtime(std::string_view command);

// Why a tool whose release the archive lacks cannot come from a task
// toolchain yet (elixir, erlang: their release builds are not a toolchain
// kind strata downloads) and what to do instead; "" for every other tool.
std::string_view pending_toolchain(std::string_view tool);

// nullptr for a tool the router has no table entry for.
const ToolInfo* tool_info(std::string_view tool);

// The Debian package that provides `command` on PATH (cc → gcc, c++ → g++,
// ninja → ninja-build); the command's own name when no table entry says otherwise.
std::string command_package(std::string_view command);

// The commands of a C toolchain (build-essential: cc, make), checked as one
// row; a C++ compiler is a command row of its own (g++).
const std::vector<std::string>& toolchain_commands();
bool is_toolchain_command(std::string_view command);
// Debian packages that are the toolchain itself rather than a library.
bool is_toolchain_package(std::string_view package);

}  // namespace strata::contract::route
