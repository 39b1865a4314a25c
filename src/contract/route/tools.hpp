// What the router knows about each tool a contract can put a floor on: the
// Debian packages that carry it (for the overlay), the command it puts on
// PATH (to spot a stale copy shadowing a task toolchain), whether the
// project's own package manager bootstraps it (npm/pnpm/yarn via npm or
// corepack, uv/poetry/pip into a venv, cargo with rustup), and where a
// pinned release comes from when neither the base nor the archive has it
// (URL pattern and the egress hosts it needs). Also which Debian package
// puts a command on PATH. Static tables; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace strata::contract::route {

struct ToolInfo {
  std::string_view tool;
  std::vector<std::string_view> debian;  // packages, preferred first ("python3.{minor}": the floor's minor)
  std::string_view command;              // on PATH; "" when none
  std::string_view bootstrap;            // how the project installs it itself; "" when it cannot
  std::string_view url;                  // task toolchain download, {version} and {arch}; "" when none
  std::vector<std::string_view> hosts;   // the url's hosts
};

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
