// A toolchain named in a config (`bundle create --toolchains FILE`, a
// pre-warm config's `toolchains:`), one entry of a YAML list:
//
//   toolchains:
//     - {tool: node, version: "20.18.0"}                 # X.Y.Z pins one release
//     - {tool: node, version: "20", source: npm}         # a line: its newest release
//     - {tool: go, version: ">=1.22 <1.23", source: https://mirror.internal/go/dl,
//        keyring: keys/go.asc, platforms: [linux/amd64, linux/arm64]}
//
// `source` is what --toolchain-source takes after TOOL= (npm, npm:URL, a
// mirror URL; default the official one); `keyring` an OpenPGP keyring
// trusted besides the compiled-in keys (relative to the config's
// directory); `platforms` the releases' os/arch (default the caller's).
// Unknown keys are errors naming the key and the entry.
//
// A version that is neither X.Y.Z nor a line is a range whose semantics
// (npm, PEP 440) this room does not own: the caller judges it (WantOf).
#pragma once

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "layer/toolchain/release.hpp"

namespace strata::layer::toolchain {

struct ToolchainEntry {
  std::string where;                    // "FILE: toolchains[0]", for messages
  std::string tool;
  std::string version;                  // X.Y.Z, a line (20, 3.12) or a range
  std::string source;                   // "": the official source
  std::filesystem::path keyring;        // "": none
  std::vector<std::string> platforms;   // empty: the caller's default
};

// The `toolchains` list of a config (`list` may be null: none).
Result<std::vector<ToolchainEntry>> parse_toolchain_entries(const YAML::Node& list, const std::string& file,
                                                            const std::filesystem::path& relative_to);

// X.Y.Z pins; a line (20, 3.12) admits the releases whose leading numbers
// are the line's. Anything else is refused (a range needs a WantOf). With
// `tool`, the want names its line (VersionWant::line) when the text is one.
Result<VersionWant> line_want(std::string_view text, std::string_view tool = "");

// Turns a version text into a want (the caller's range semantics).
using WantOf = std::function<Result<VersionWant>(const std::string& tool, const std::string& text)>;

// The entry as a resolve request for `arch`: its source (parsed), keyring,
// want (want_of, else line_want) and `satisfies` (npm's engines; needed for
// node=npm).
Result<ResolveRequest> entry_request(const ToolchainEntry& entry, const std::string& arch, const WantOf& want_of,
                                     RangeCheck satisfies);

}  // namespace strata::layer::toolchain
