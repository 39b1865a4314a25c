// Where images record runtime versions, and how to read each: Debian
// packages (nodejs, python3.11, golang-1.19-go, rustc, openjdk-17-jdk…),
// the ENV variables official images set (NODE_VERSION, PYTHON_VERSION,
// GOLANG_VERSION, JAVA_VERSION, RUST_VERSION, …), and version files of
// runtimes unpacked outside dpkg (node_version.h, Python's patchlevel.h,
// /usr/local/go/VERSION, the JDK's release file, rustup's toolchain
// directories), including those of the runtimes strata's toolchain layer
// installs under /opt/strata/toolchains/<tool>/<version>/. Pure functions
// over text; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/image/image_facts.hpp"

namespace strata::contract::image {

// The upstream part of a Debian version: no epoch, no revision, no
// "+dfsg"/"~" suffix ("2:1.19~1" → "1.19", "18.19.0+dfsg-6~deb12u2" → "18.19.0").
std::string upstream_version(std::string_view debian_version);

// The runtime a Debian package carries, if it is one ("nodejs" → node,
// "python3.11" → python, "golang-1.19-go" → go).
std::optional<std::string> runtime_of_package(std::string_view package);

// The runtime an ENV variable advertises ("NODE_VERSION=22.11.0" → node
// 22.11.0; "JAVA_VERSION=jdk-17.0.9+9" → java 17.0.9).
std::optional<RuntimeFact> runtime_of_env(std::string_view entry);

// Where strata's toolchain layer installs runtimes: <tool>/<version>/ under it.
inline constexpr std::string_view kStrataToolchains = "opt/strata/toolchains";

// Whether `path` (canonical, no leading '/') is a version file this reader
// knows; its content is then captured. Under kStrataToolchains:
// node/<v>/include/node/node_version.h, go/<v>/VERSION,
// python/<v>/include/python3.X/patchlevel.h and java/<v>/release.
bool is_version_file(std::string_view path);

// Version files are the image's bytes, read without trust: a file larger
// than kMaxVersionFileBytes is not parsed (the caller checks the size
// before reading it), a value longer than kMaxVersionValueBytes is no
// version, and every parser is a single pass over the text (no regular
// expressions: std::regex recursed per character and crashed on a 60 KB
// unterminated JAVA_VERSION=").
inline constexpr std::size_t kMaxVersionFileBytes = std::size_t{64} << 10;
inline constexpr std::size_t kMaxVersionValueBytes = 128;

// What a version file gave: a runtime, or none and why (a note for the
// facts, naming the file: "/opt/java/openjdk/release: JAVA_VERSION=\" is
// not terminated on its line; no version read from it").
// A version file under kStrataToolchains that gives another version than
// its directory's name gives the file's version (what runs) and a note
// saying both.
struct VersionFileReading {
  std::optional<RuntimeFact> fact;
  std::string note;  // without `fact`: why none; with it: a mismatch with the directory, or empty
};
VersionFileReading read_version_file(std::string_view path, std::string_view content);

// The runtime a captured version file records (read_version_file's fact).
std::optional<RuntimeFact> runtime_of_file(std::string_view path, std::string_view content);

// The note for a version file of `size` bytes, too large to be read.
std::string oversize_version_file_note(std::string_view path, std::uint64_t size);

// Rust toolchains installed by rustup: directory names under
// usr/local/rustup/toolchains ("1.79.0-x86_64-unknown-linux-gnu").
// Rust and the .NET SDK installed by strata's toolchain layer, from the path
// convention: the entry opt/strata/toolchains/rust/<version>/bin/rustc gives
// rust <version>, opt/strata/toolchains/dotnet/<version>/dotnet dotnet <version>.
std::optional<RuntimeFact> runtime_of_toolchain_entry(std::string_view path);

inline constexpr std::string_view kRustupToolchains = "usr/local/rustup/toolchains";
std::optional<RuntimeFact> runtime_of_rustup_toolchain(std::string_view dir_name);

}  // namespace strata::contract::image
