#include "contract/scan/scan.hpp"

#include <array>
#include <system_error>

#include "contract/knowledge/knowledge.hpp"
#include "contract/scan/native_classifier.hpp"
#include "contract/scan/build_env_scanner.hpp"
#include "contract/scan/cbuild_scanner.hpp"
#include "contract/scan/dotnet_scanner.hpp"
#include "contract/scan/elixir_scanner.hpp"
#include "contract/scan/go_scanner.hpp"
#include "contract/scan/jvm_scanner.hpp"
#include "contract/scan/node_scanner.hpp"
#include "contract/scan/program_scanner.hpp"
#include "contract/scan/project_yaml.hpp"
#include "contract/scan/php_scanner.hpp"
#include "contract/scan/python_scanner.hpp"
#include "contract/scan/ruby_scanner.hpp"
#include "contract/scan/rust_scanner.hpp"
#include "contract/scan/tool_versions_scanner.hpp"
#include "contract/scan/scan_context.hpp"
#include "contract/scan/test_images_scanner.hpp"

namespace strata::contract {
namespace {

// File names any scanner reads; everything else is never opened.
bool interesting(std::string_view name) {
  static constexpr std::array<std::string_view, 47> kNames = {
      "package.json", "package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "pnpm-workspace.yaml",
      "yarn.lock", "bun.lock", "bun.lockb", ".nvmrc", ".node-version", ".npmrc", ".yarnrc.yml", ".yarnrc",
      ".tool-versions", "mise.toml", ".mise.toml", "mise.lock", "pyproject.toml", "Pipfile", "setup.py", "setup.cfg", "runtime.txt",
      ".python-version", "uv.lock", "poetry.lock", "go.mod", "go.work", "Cargo.toml", "Cargo.lock",
      "rust-toolchain", "rust-toolchain.toml", "config.toml", "CMakeLists.txt", "meson.build", "Makefile",
      "project.yaml", "binding.gyp", ".python-version.txt", "python-version", "Gemfile", "Gemfile.lock", "gems.rb", "gems.locked", ".ruby-version",
      "composer.json", "composer.lock", "config"};
  for (auto n : kNames)
    if (name == n) return true;
  if (name.starts_with("requirements") && name.ends_with(".txt")) return true;
  if (build_env_file(name)) return true;
  if (jvm_file(name) || elixir_file(name) || dotnet_file(name)) return true;
  return program_source_file(name) || test_image_source_file(name);
}

const Result<KnowledgeBase>& knowledge() {
  static const Result<KnowledgeBase> kb = KnowledgeBase::embedded();
  return kb;
}

}  // namespace

Result<Contract> scan_repository(const std::filesystem::path& root, const ScanOptions& options) {
  std::error_code ec;
  if (!std::filesystem::is_directory(root, ec))
    return fail(ErrorCode::kNotFound, "scan " + root.string() + ": not a directory; give the repository's directory");
  const auto& kb = knowledge();
  if (!kb) return fail(kb.error().context("loading the knowledge base"));

  RepoFs fs(root, options.limits);
  fs.walk(interesting);
  ScanContext ctx(fs, *kb);
  scan_project_yaml(ctx);
  scan_tool_versions(ctx);
  scan_node(ctx);
  scan_python(ctx);
  scan_go(ctx);
  scan_rust(ctx);
  scan_ruby(ctx);
  scan_php(ctx);
  scan_jvm(ctx);
  scan_elixir(ctx);
  scan_dotnet(ctx);
  scan_c_builds(ctx);
  scan_build_envs(ctx);
  scan_programs(ctx);
  scan_test_images(ctx);
  auto natives = classify_native(ctx);
  return ctx.finish(root.string(), std::move(natives));
}

}  // namespace strata::contract
