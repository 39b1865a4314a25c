#include "contract/image/runtime_markers.hpp"

#include <array>
#include <cctype>
#include <regex>
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
constexpr std::array<std::pair<std::string_view, std::string_view>, 11> kEnvRuntimes = {{
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
}};

// "#define NAME 18" → "18".
std::string define_value(std::string_view content, const std::string& name) {
  std::regex re("#define[ \\t]+" + name + "[ \\t]+\"?([0-9][0-9A-Za-z.+]*)\"?");
  std::match_results<std::string_view::const_iterator> m;
  if (std::regex_search(content.begin(), content.end(), m, re)) return m[1].str();
  return {};
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
  if (p == "ruby" || (p.starts_with("ruby") && p.size() > 4 && digit(p[4]))) return "ruby";
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
         python_patchlevel(path);
}

std::optional<RuntimeFact> runtime_of_file(std::string_view path, std::string_view content) {
  RuntimeFact f;
  f.kind = "file";
  f.source = "file /" + std::string(path);
  if (path.ends_with("node/node_version.h")) {
    std::string major = define_value(content, "NODE_MAJOR_VERSION"), minor = define_value(content, "NODE_MINOR_VERSION"),
                patch = define_value(content, "NODE_PATCH_VERSION");
    if (major.empty() || minor.empty() || patch.empty()) return std::nullopt;
    f.tool = "node";
    f.version = major + "." + minor + "." + patch;
  } else if (path.ends_with("/patchlevel.h")) {
    f.tool = "python";
    f.version = leading_version(define_value(content, "PY_VERSION"));
  } else if (path.ends_with("go/VERSION")) {
    f.tool = "go";
    f.version = leading_version(str::trim(content.substr(0, content.find('\n'))));
  } else if (path.ends_with("openjdk/release")) {
    std::regex re("JAVA_VERSION=\"([^\"]*)\"");
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(content.begin(), content.end(), m, re)) return std::nullopt;
    f.tool = "java";
    f.version = leading_version(m[1].str());
  } else {
    return std::nullopt;
  }
  if (f.version.empty()) return std::nullopt;
  return f;
}

std::optional<RuntimeFact> runtime_of_rustup_toolchain(std::string_view dir_name) {
  std::string v = leading_version(dir_name);
  if (v.empty() || std::count(v.begin(), v.end(), '.') < 1) return std::nullopt;
  return RuntimeFact{"rust", v, "file", "file /" + std::string(kRustupToolchains) + "/" + std::string(dir_name)};
}

}  // namespace strata::contract::image
