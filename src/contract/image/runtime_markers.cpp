#include "contract/image/runtime_markers.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include "util/strings.hpp"

namespace strata::contract::image {
namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// The leading "N[.N]*" of `s` (after an optional "v", "go", "jdk-").
std::string leading_version(std::string_view s) {
  for (std::string_view prefix : {"jdk-", "go", "v"})
    if (s.starts_with(prefix) && s.size() > prefix.size() && digit(s[prefix.size()])) s.remove_prefix(prefix.size());
  std::size_t n = 0;
  while (n < s.size() && (digit(s[n]) || (s[n] == '.' && n + 1 < s.size() && digit(s[n + 1])))) ++n;
  return std::string(s.substr(0, n));
}

// ENV variables official images set, and the tool each names.
constexpr std::array<std::pair<std::string_view, std::string_view>, 15> kEnvRuntimes = {{
    {"NODE_VERSION", "node"},
    {"PYTHON_VERSION", "python"},
    {"GOLANG_VERSION", "go"},
    {"GO_VERSION", "go"},
    {"JAVA_VERSION", "java"},
    {"RUST_VERSION", "rust"},
    {"RUBY_VERSION", "ruby"},
    {"PHP_VERSION", "php"},
    {"YARN_VERSION", "yarn"},
    {"PNPM_VERSION", "pnpm"},
    {"BUN_VERSION", "bun"},
    {"ELIXIR_VERSION", "elixir"},     // elixir images: "v1.15.7"
    {"OTP_VERSION", "erlang"},        // erlang and elixir images
    {"GRADLE_VERSION", "gradle"},     // gradle images
    {"DOTNET_SDK_VERSION", "dotnet"}, // mcr.microsoft.com/dotnet/sdk (DOTNET_VERSION is the runtime's)
}};

// A field a version file names: its value, or why there is none.
struct Field {
  std::optional<std::string> value;
  std::string problem;  // "" with no value: no line names the field
};

// Calls `f` on each line of `text` (without its '\n'), first to last,
// until it returns true.
template <class F>
void each_line(std::string_view text, F f) {
  while (!text.empty()) {
    auto nl = text.find('\n');
    if (f(text.substr(0, nl))) return;
    if (nl == std::string_view::npos) return;
    text.remove_prefix(nl + 1);
  }
}

std::string_view skip_blanks(std::string_view s) {
  while (!s.empty() && (s[0] == ' ' || s[0] == '\t')) s.remove_prefix(1);
  return s;
}

bool version_char(char c) { return digit(c) || std::isalpha(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '+'; }

// "#define NAME 18" or "#define NAME \"3.12.4\"" → "18", "3.12.4": the
// first such line whose value starts with a digit. One pass; a value is
// read up to kMaxVersionValueBytes characters.
Field define_field(std::string_view content, std::string_view name) {
  Field out;
  each_line(content, [&](std::string_view line) {
    line = skip_blanks(line);
    if (!line.starts_with("#define")) return false;
    line.remove_prefix(7);
    std::string_view rest = skip_blanks(line);
    if (rest.size() == line.size() || !rest.starts_with(name)) return false;
    line = rest.substr(name.size());
    rest = skip_blanks(line);
    if (rest.size() == line.size()) return false;  // NAME_OTHER, or NAME at the end
    if (rest.starts_with('"')) rest.remove_prefix(1);
    std::size_t n = 0;
    while (n < rest.size() && n <= kMaxVersionValueBytes && version_char(rest[n])) ++n;
    if (n > kMaxVersionValueBytes) {
      out.problem = std::string(name) + " is longer than " + std::to_string(kMaxVersionValueBytes) + " characters";
      return false;
    }
    if (n == 0 || !digit(rest[0])) {
      out.problem = std::string(name) + " is not a version";
      return false;
    }
    out.value = std::string(rest.substr(0, n));
    return true;
  });
  return out;
}

// KEY="VALUE" on a line of its own (a shell-style release file), the value
// on that line and at most kMaxVersionValueBytes characters.
Field quoted_field(std::string_view content, std::string_view key) {
  Field out;
  each_line(content, [&](std::string_view line) {
    line = skip_blanks(line);
    if (!line.starts_with(key) || line.substr(key.size(), 1) != "=") return false;
    line.remove_prefix(key.size() + 1);
    if (!line.starts_with('"')) {
      out.problem = std::string(key) + " is not a quoted value";
      return false;
    }
    line.remove_prefix(1);
    const std::size_t end = line.substr(0, kMaxVersionValueBytes + 1).find('"');
    if (end == std::string_view::npos) {
      out.problem = std::string(key) + (line.size() > kMaxVersionValueBytes
                                            ? "'s value is longer than " + std::to_string(kMaxVersionValueBytes) +
                                                  " characters"
                                            : "=\" is not terminated on its line");
      return false;
    }
    out.value = std::string(line.substr(0, end));
    return true;
  });
  return out;
}

// The problem of a field that gave no value.
std::string missing(const Field& f, std::string_view what) {
  return f.problem.empty() ? "no " + std::string(what) + " line" : f.problem;
}

bool python_patchlevel(std::string_view path) {
  // usr/include/python3.11/patchlevel.h, usr/local/include/python3.12/patchlevel.h
  for (std::string_view dir : {"usr/include/python", "usr/local/include/python"}) {
    if (!path.starts_with(dir)) continue;
    std::string_view rest = path.substr(dir.size());
    auto slash = rest.find('/');
    return slash != std::string_view::npos && rest.substr(slash) == "/patchlevel.h" && slash > 0 && digit(rest[0]);
  }
  return false;
}

// "opt/strata/toolchains/node/20.18.0/include/node/node_version.h" →
// {node, 20.18.0, include/node/node_version.h}: a runtime strata's toolchain
// layer installed.
struct ToolchainPath {
  std::string_view tool, version, rest;
};
std::optional<ToolchainPath> toolchain_path(std::string_view path) {
  if (!path.starts_with(kStrataToolchains) || path.substr(kStrataToolchains.size(), 1) != "/") return std::nullopt;
  path.remove_prefix(kStrataToolchains.size() + 1);
  auto slash = path.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  ToolchainPath out{path.substr(0, slash), {}, {}};
  path.remove_prefix(slash + 1);
  slash = path.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  out.version = path.substr(0, slash);
  out.rest = path.substr(slash + 1);
  return out;
}

// include/python3.12/patchlevel.h
bool python_include_patchlevel(std::string_view rest) {
  if (!rest.starts_with("include/python")) return false;
  rest.remove_prefix(14);
  auto slash = rest.find('/');
  return slash != std::string_view::npos && slash > 0 && digit(rest[0]) && rest.substr(slash) == "/patchlevel.h";
}

// The version file of a toolchain strata's layer installed, for its tool.
bool toolchain_version_file(std::string_view path) {
  auto t = toolchain_path(path);
  if (!t) return false;
  if (t->tool == "node") return t->rest == "include/node/node_version.h";
  if (t->tool == "go") return t->rest == "VERSION";
  if (t->tool == "python") return python_include_patchlevel(t->rest);
  if (t->tool == "java") return t->rest == "release";  // the JDK's release file (JAVA_VERSION="21.0.5")
  return false;
}

}  // namespace

std::string upstream_version(std::string_view v) {
  if (auto colon = v.find(':'); colon != std::string_view::npos) v.remove_prefix(colon + 1);
  return leading_version(v);
}

std::optional<std::string> runtime_of_package(std::string_view p) {
  if (p == "nodejs") return "node";
  if (p == "python3" || (p.starts_with("python3.") && p.size() > 8 &&
                         std::all_of(p.begin() + 8, p.end(), [](char c) { return digit(c); })))
    return "python";
  if (p == "golang-go" || (p.starts_with("golang-1.") && p.ends_with("-go"))) return "go";
  if (p == "rustc") return "rust";
  if (p == "cargo") return "cargo";
  if (p == "npm") return "npm";
  if (p == "yarnpkg") return "yarn";
  if (p == "cmake") return "cmake";
  if (p == "meson") return "meson";
  if (p == "ruby" || (p.starts_with("ruby") && p.size() > 4 && digit(p[4]) && !p.ends_with("-dev"))) return "ruby";
  if (p == "php-cli" || (p.starts_with("php") && p.size() > 3 && digit(p[3]) && p.ends_with("-cli"))) return "php";
  if (p == "bundler") return "bundler";
  if (p == "composer") return "composer";
  if (p == "maven" || p == "gradle" || p == "elixir" || p == "erlang") return std::string(p);
  if (p == "erlang-nox") return "erlang";
  if (p.starts_with("openjdk-") && (p.ends_with("-jdk") || p.ends_with("-jdk-headless") || p.ends_with("-jre") ||
                                    p.ends_with("-jre-headless")))
    return "java";
  return std::nullopt;
}

std::optional<RuntimeFact> runtime_of_env(std::string_view entry) {
  auto eq = entry.find('=');
  if (eq == std::string_view::npos) return std::nullopt;
  std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
  for (const auto& [var, tool] : kEnvRuntimes) {
    if (name != var) continue;
    std::string v = leading_version(value);
    if (v.empty()) return std::nullopt;
    return RuntimeFact{std::string(tool), v, "env", "ENV " + std::string(entry)};
  }
  return std::nullopt;
}

bool is_version_file(std::string_view path) {
  return path == "usr/local/include/node/node_version.h" || path == "usr/include/node/node_version.h" ||
         path == "usr/local/go/VERSION" || path == "usr/lib/go/VERSION" || path == "opt/java/openjdk/release" ||
         python_patchlevel(path) || toolchain_version_file(path);
}

std::string oversize_version_file_note(std::string_view path, std::uint64_t size) {
  return "/" + std::string(path) + ": " + std::to_string(size) + " bytes, more than the " +
         str::human_bytes(kMaxVersionFileBytes) + " a version file may have; no version read from it";
}

VersionFileReading read_version_file(std::string_view path, std::string_view content) {
  VersionFileReading out;
  if (content.size() > kMaxVersionFileBytes) {
    out.note = oversize_version_file_note(path, content.size());
    return out;
  }
  RuntimeFact f;
  f.kind = "file";
  f.source = "file /" + std::string(path);
  std::string problem;
  if (path.ends_with("node/node_version.h")) {
    f.tool = "node";
    std::string parts[3];
    const std::string_view names[3] = {"NODE_MAJOR_VERSION", "NODE_MINOR_VERSION", "NODE_PATCH_VERSION"};
    for (int i = 0; i < 3 && problem.empty(); ++i) {
      auto field = define_field(content, names[i]);
      if (field.value) parts[i] = *field.value;
      else problem = missing(field, "#define " + std::string(names[i]));
    }
    if (problem.empty()) f.version = parts[0] + "." + parts[1] + "." + parts[2];
  } else if (path.ends_with("/patchlevel.h")) {
    f.tool = "python";
    auto field = define_field(content, "PY_VERSION");
    if (field.value) f.version = leading_version(*field.value);
    else problem = missing(field, "#define PY_VERSION");
  } else if (path.ends_with("go/VERSION") || (toolchain_version_file(path) && toolchain_path(path)->tool == "go")) {
    f.tool = "go";
    std::string_view first = content.substr(0, content.find('\n'));
    if (first.size() > kMaxVersionValueBytes)
      problem = "the first line is longer than " + std::to_string(kMaxVersionValueBytes) + " characters";
    else f.version = leading_version(str::trim(first));
  } else if (path.ends_with("openjdk/release") ||
             (toolchain_version_file(path) && toolchain_path(path)->tool == "java")) {
    f.tool = "java";
    auto field = quoted_field(content, "JAVA_VERSION");
    if (field.value) f.version = leading_version(*field.value);
    else problem = missing(field, "JAVA_VERSION=\"…\"");
  } else {
    out.note = "/" + std::string(path) + ": not a version file strata reads";
    return out;
  }
  if (problem.empty() && f.version.empty()) problem = "no " + f.tool + " version in it";
  if (!problem.empty()) {
    out.note = "/" + std::string(path) + ": " + problem + "; no version read from it";
    return out;
  }
  // A toolchain directory names its version; when the file says another,
  // the file is what runs: trusted, and the mismatch noted.
  if (auto t = toolchain_path(path); t && t->tool == f.tool && t->version != f.version) {
    std::string dir = std::string(t->version).substr(0, kMaxVersionValueBytes);
    out.note = "/" + std::string(kStrataToolchains) + "/" + std::string(t->tool) + "/" + dir + ": /" +
               std::string(path) + " says " + f.tool + " " + f.version + ", not " + dir + "; " + f.version +
               " is trusted";
  }
  out.fact = std::move(f);
  return out;
}

std::optional<RuntimeFact> runtime_of_file(std::string_view path, std::string_view content) {
  return read_version_file(path, content).fact;
}

std::optional<RuntimeFact> runtime_of_toolchain_entry(std::string_view path) {
  auto t = toolchain_path(path);
  // rust/<v>/bin/rustc; dotnet/<v>/dotnet (the SDK's host at its root).
  if (!t || !((t->tool == "rust" && t->rest == "bin/rustc") || (t->tool == "dotnet" && t->rest == "dotnet")))
    return std::nullopt;
  std::string v = leading_version(t->version);
  if (v.empty() || v.size() != t->version.size() || std::count(v.begin(), v.end(), '.') < 1) return std::nullopt;
  return RuntimeFact{std::string(t->tool), v, "file", "file /" + std::string(path)};
}

std::optional<RuntimeFact> runtime_of_rustup_toolchain(std::string_view dir_name) {
  std::string v = leading_version(dir_name);
  if (v.empty() || std::count(v.begin(), v.end(), '.') < 1) return std::nullopt;
  return RuntimeFact{"rust", v, "file", "file /" + std::string(kRustupToolchains) + "/" + std::string(dir_name)};
}

}  // namespace strata::contract::image
