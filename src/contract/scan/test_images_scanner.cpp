#include "contract/scan/test_images_scanner.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

#include "contract/scan/container_image.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

constexpr std::array<std::string_view, 10> kExtensions = {".java", ".kt", ".groovy", ".scala", ".cs",
                                                          ".go",   ".py", ".js",     ".ts",    ".mjs"};
constexpr std::array<std::string_view, 6> kMarkers = {"DockerImageName", "GenericContainer", "ContainerBuilder",
                                                      "WithImage(", "testcontainers", "Testcontainers"};
constexpr std::uint64_t kMaxTotalBytes = 64ull << 20;

// "mcr.microsoft.com/mssql/server:2022-latest" → its registry's host;
// "docker.elastic.co/elasticsearch/elasticsearch-oss:" (a tag appended in
// code) too. Not a Docker Hub name (the Testcontainers entry's hosts already),
// a path without a host, a URL, a registry on localhost, or a name on a code
// host that is no registry ("github.com/org/repo" is a Go module or a link).
std::optional<std::string> registry_of(std::string_view lit) {
  if (lit.size() > 256 || lit.find("://") != std::string_view::npos) return std::nullopt;
  if (lit.ends_with(':')) lit.remove_suffix(1);
  auto pull = image_pull(lit);
  if (!pull || !pull->registry_named || pull->docker_hub) return std::nullopt;
  const std::string& host = pull->hosts.front();
  if (host == "github.com" || host == "gitlab.com" || host == "bitbucket.org") return std::nullopt;
  return host;
}

// Where an image name stands: the argument of a call that takes one
// (`DockerImageName.parse("…")`, `new GenericContainer<>("…")`,
// `.WithImage("…")`, `new PostgreSQLContainer("…")`), or a literal that names
// a tag or digest (`"…/server:2022-latest"`, `"…/elasticsearch-oss:" + v`),
// which an import path, a URL path or a package name does not.
bool image_position(std::string_view text, std::size_t open, std::string_view lit) {
  auto last = lit.rfind('/');
  if (last != std::string_view::npos && lit.find_first_of(":@", last) != std::string_view::npos) return true;
  std::string_view before = text.substr(0, open);
  while (!before.empty() && (before.back() == ' ' || before.back() == '\t')) before.remove_suffix(1);
  if (!before.ends_with('(')) return false;
  before.remove_suffix(1);
  if (before.ends_with("<>")) before.remove_suffix(2);  // new GenericContainer<>("…")
  for (std::string_view call : {"DockerImageName.parse", "Container", "WithImage", "withImage", "DockerImageName"})
    if (before.ends_with(call)) return true;
  return false;
}

bool in_vendored_tree(std::string_view rel) {
  for (auto part : str::split(rel, '/'))
    if (part == "vendor" || part == "third_party" || part == "node_modules") return true;
  return false;
}

bool uses_testcontainers(const ScanContext& ctx) {
  for (const auto& [key, signals] : ctx.packages()) {
    std::string name = key.second;
    std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
    if (name.find("testcontainers") != std::string::npos) return true;
  }
  return false;
}

}  // namespace

bool test_image_source_file(std::string_view name) {
  return std::any_of(kExtensions.begin(), kExtensions.end(), [&](std::string_view e) { return name.ends_with(e); });
}

void scan_test_images(ScanContext& ctx) {
  if (!uses_testcontainers(ctx)) return;
  std::size_t read = 0;
  std::uint64_t total = 0;
  // Test trees first (src/test/…, tests/, *Test*.cs): a large application's
  // main sources must not use up the file budget before them.
  std::vector<std::string> files;
  for (const auto& rel : ctx.fs().files_ending("")) {
    std::string_view base = std::string_view(rel).substr(rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/') + 1);
    if (test_image_source_file(base) && !in_vendored_tree(rel)) files.push_back(rel);  // a vendored copy's images are its own
  }
  std::stable_partition(files.begin(), files.end(), [](const std::string& rel) {
    return rel.find("test") != std::string::npos || rel.find("Test") != std::string::npos ||
           rel.find("spec") != std::string::npos;
  });
  for (const auto& rel : files) {
    std::string_view base = std::string_view(rel).substr(rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/') + 1);
    if (++read > ctx.fs().limits().max_source_files || total > kMaxTotalBytes) {
      ctx.note(".", "stopped looking for the images tests start after " + std::to_string(read - 1) + " source files");
      return;
    }
    auto text = ctx.fs().read_text(rel, ctx.fs().limits().max_source_bytes);
    if (!text) continue;
    total += text->size();
    if (std::none_of(kMarkers.begin(), kMarkers.end(), [&](std::string_view m) { return text->find(m) != std::string::npos; }))
      continue;
    const bool single_quotes = base.ends_with(".py") || base.ends_with(".js") || base.ends_with(".ts") ||
                               base.ends_with(".mjs") || base.ends_with(".groovy");
    std::size_t line = 1;
    for (std::size_t i = 0; i < text->size(); ++i) {
      const char q = (*text)[i];
      if (q == '\n') ++line;
      if (q == '\'' && !single_quotes) {  // a char literal ('"', '\''): not a string's quote
        if (i + 2 < text->size() && (*text)[i + 2] == '\'') i += 2;
        else if (i + 3 < text->size() && (*text)[i + 1] == '\\' && (*text)[i + 3] == '\'') i += 3;
        continue;
      }
      if (q != '"' && !(q == '\'' && single_quotes)) continue;
      auto close = text->find_first_of(std::string{q, '\n'}, i + 1);
      if (close == std::string::npos || (*text)[close] != q) continue;
      std::string_view lit = std::string_view(*text).substr(i + 1, close - i - 1);
      const std::size_t open = i;
      i = close;
      if (!image_position(*text, open, lit)) continue;
      auto host = registry_of(lit);
      if (!host) continue;
      ctx.egress(*host, EgressOrigin::kInstallTime,
                 "the tests start a container from " + std::string(lit) + " (Testcontainers); the Docker daemon pulls it from " + *host,
                 Evidence{rel, "line " + std::to_string(line), std::string(lit)});
    }
  }
}

}  // namespace strata::contract
