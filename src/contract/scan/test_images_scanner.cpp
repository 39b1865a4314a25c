#include "contract/scan/test_images_scanner.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

#include "contract/model/host_name.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

constexpr std::array<std::string_view, 10> kExtensions = {".java", ".kt", ".groovy", ".scala", ".cs",
                                                          ".go",   ".py", ".js",     ".ts",    ".mjs"};
constexpr std::array<std::string_view, 6> kMarkers = {"DockerImageName", "GenericContainer", "ContainerBuilder",
                                                      "WithImage(", "testcontainers", "Testcontainers"};
constexpr std::uint64_t kMaxTotalBytes = 64ull << 20;

bool image_char(char c) {
  return std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '.' ||
         c == '_' || c == '-' || c == '/';
}

// "mcr.microsoft.com/mssql/server:2022-latest" → "mcr.microsoft.com";
// "docker.elastic.co/elasticsearch/elasticsearch-oss:" (a tag appended in
// code) too. Not "postgres:16", "library/redis", a URL or a file path.
std::optional<std::string> registry_of(std::string_view ref) {
  auto slash = ref.find('/');
  if (slash == std::string_view::npos || slash == 0 || ref.size() > 256) return std::nullopt;
  std::string_view host = ref.substr(0, slash), rest = ref.substr(slash + 1);
  if (auto colon = host.find(':'); colon != std::string_view::npos) {  // a registry's port
    std::string_view port = host.substr(colon + 1);
    if (port.empty() || !std::all_of(port.begin(), port.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
      return std::nullopt;
    host = host.substr(0, colon);
  }
  if (host.find('.') == std::string_view::npos || host_name_problem(host, false)) return std::nullopt;
  std::string_view repo = rest.substr(0, rest.find_first_of(":@"));
  if (repo.empty() || repo.back() == '/' || !std::all_of(repo.begin(), repo.end(), image_char)) return std::nullopt;
  if (std::string_view tail = rest.substr(repo.size()); !tail.empty()) {
    tail.remove_prefix(1);
    for (char c : tail)
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-' && c != ':') return std::nullopt;
  }
  std::string out(host);
  if (out == "docker.io" || out == "index.docker.io" || out == "registry-1.docker.io") return std::nullopt;
  return out;
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
  for (const auto& rel : ctx.fs().files_ending("")) {
    std::string_view base = std::string_view(rel).substr(rel.rfind('/') == std::string::npos ? 0 : rel.rfind('/') + 1);
    if (!test_image_source_file(base)) continue;
    if (++read > ctx.fs().limits().max_source_files || total > kMaxTotalBytes) {
      ctx.note(".", "stopped looking for the images tests start after " + std::to_string(read - 1) + " source files");
      return;
    }
    auto text = ctx.fs().read_text(rel, ctx.fs().limits().max_source_bytes);
    if (!text) continue;
    total += text->size();
    if (std::none_of(kMarkers.begin(), kMarkers.end(), [&](std::string_view m) { return text->find(m) != std::string::npos; }))
      continue;
    std::size_t line = 1;
    for (std::size_t i = 0; i < text->size(); ++i) {
      char c = (*text)[i];
      if (c == '\n') ++line;
      if (c != '"') continue;
      auto close = text->find_first_of("\"\n", i + 1);
      if (close == std::string::npos || (*text)[close] != '"') continue;
      std::string_view lit = std::string_view(*text).substr(i + 1, close - i - 1);
      i = close;
      auto host = registry_of(lit);
      if (!host) continue;
      ctx.egress(*host, EgressOrigin::kInstallTime,
                 "the tests start a container from " + std::string(lit) + " (Testcontainers); the Docker daemon pulls it from " + *host,
                 Evidence{rel, "line " + std::to_string(line), std::string(lit)});
    }
  }
}

}  // namespace strata::contract
