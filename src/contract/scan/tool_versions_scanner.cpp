#include "contract/scan/tool_versions_scanner.hpp"

#include "contract/knowledge/tool_version.hpp"
#include "contract/scan/toml_file.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

// asdf/mise plugin name → contract tool name; others are ignored.
std::string tool_name(std::string_view t) {
  if (t == "nodejs" || t == "node") return "node";
  if (t == "golang" || t == "go") return "go";
  if (t == "dotnet-core" || t == "dotnet") return "dotnet";
  for (std::string_view same : {"python", "rust", "npm", "pnpm", "yarn", "bun", "cmake", "poetry", "uv", "deno", "ruby", "php",
                                "java", "maven", "gradle", "elixir", "erlang"})
    if (t == same) return std::string(t);
  return {};
}

void record(ScanContext& ctx, const std::string& rel, const std::string& field, const std::string& tool,
            const std::string& value) {
  if (value.starts_with("ref:") || value.starts_with("path:") || value == "system" || value == "latest") {
    ctx.note(rel, field + " = " + str::quote(value) + " names no release; no floor taken from it");
    return;
  }
  std::string note;
  auto range = read_tool_version(tool, value, ctx.kb(), note);  // before `note` is passed on
  ctx.constraint(tool, ConstraintKind::kPin, {rel, field, value}, range, note);
}

void tool_versions(ScanContext& ctx, const std::string& rel) {
  auto text = ctx.fs().read_text(rel);
  if (!text) return;
  for (auto line : str::split(*text, '\n')) {
    if (auto hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    auto f = str::split_ws(line);
    if (f.size() < 2) continue;
    std::string tool = tool_name(f[0]);
    if (tool.empty()) continue;
    record(ctx, rel, std::string(f[0]), tool, std::string(f[1]));
  }
}

void mise(ScanContext& ctx, const std::string& rel) {
  TomlFile t = TomlFile::read(ctx, rel);
  if (!t.ok()) return;
  for (const auto& k : t.keys("tools")) {
    std::string tool = tool_name(k);
    if (tool.empty()) continue;
    std::string field = "tools." + k;
    if (auto v = t.version_like(field)) record(ctx, rel, field, tool, *v);
    else if (auto vs = t.strings(field); !vs.empty()) record(ctx, rel, field, tool, vs.front());
  }
}

// mise.lock (`mise lock`): the exact release mise resolved each tool of
// mise.toml to (`[[tools.node]] version = "24.14.1"` for `node = "24"`), the
// version the project's environment installs.
void mise_lock(ScanContext& ctx, const std::string& rel) {
  TomlFile t = TomlFile::read(ctx, rel);
  if (!t.ok()) return;
  for (const auto& k : t.keys("tools")) {
    std::string tool = tool_name(k);
    if (tool.empty()) continue;
    const std::string field = "tools." + k;
    const auto versions = t.array_field(field, "version");
    if (versions.size() == 1) record(ctx, rel, field + ".version", tool, versions.front());
  }
}

}  // namespace

void scan_tool_versions(ScanContext& ctx) {
  for (const auto& f : ctx.fs().files_named(".tool-versions")) tool_versions(ctx, f);
  for (const char* n : {"mise.toml", ".mise.toml"})
    for (const auto& f : ctx.fs().files_named(n)) mise(ctx, f);
  for (const auto& f : ctx.fs().files_named("mise.lock")) mise_lock(ctx, f);
}

}  // namespace strata::contract
