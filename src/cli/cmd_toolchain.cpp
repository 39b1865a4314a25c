// strata toolchain install TOOL@VERSION --dir DIR: a task toolchain for a
// task without an image — the same release resolution, verification and
// cache as provision's toolchain layers (layer::toolchain), unpacked
// rootless into DIR/<tool>/<version> with links in DIR/bin.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/decision_options.hpp"
#include "cli/toolchain_entries.hpp"
#include "layer/toolchain/toolchain_layer.hpp"
#include "oci/manifest.hpp"
#include "oci/platform.hpp"

namespace strata::cli {
namespace {
namespace tc = layer::toolchain;

struct InstallArgs {
  std::string what;  // node@22.11.0
  std::string dir;
  std::vector<std::string> sources, keyrings;
  std::string platform;
};

// `export NAME='value'` for eval: the value single-quoted (a directory may
// hold spaces, `$` or quotes), a trailing ":$PATH" left to the shell.
std::string shell_export(const std::string& entry) {
  auto eq = entry.find('=');
  std::string name = entry.substr(0, eq), value = entry.substr(eq + 1);
  std::string tail;
  if (value.ends_with(":$PATH")) {
    value.resize(value.size() - 6);
    tail = ":\"$PATH\"";
  }
  std::string quoted = "'";
  for (char c : value) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "export " + name + "=" + quoted + "'" + tail;
}

void run_install(const GlobalOptions& g, const InstallArgs& a, oci::http::Transport& http) {
  auto at = a.what.find('@');
  if (at == std::string::npos || at == 0 || at + 1 == a.what.size())
    throw Exit{kExitUsage, a.what + ": expected TOOL@VERSION (node@22.11.0, go@1.22, python@3.12, java@21, dotnet@8.0)"};
  const std::string tool = a.what.substr(0, at);
  if (!tc::is_toolchain_tool(tool))
    throw Exit{kExitUsage, tool + ": strata installs toolchains of " + std::string(tc::kToolchainTools)};
  tc::ResolveRequest q;
  q.tool = tool;
  auto want = toolchain_want(tool, a.what.substr(at + 1));
  if (!want) throw Exit{kExitUsage, want.error().message()};
  q.want = std::move(*want);
  q.source = tc::official_source(tool);
  for (const auto& s : a.sources) {
    auto [t, src] = check(tc::parse_source_option(s));
    if (t == tool) q.source = src;
  }
  auto keyrings = toolchain_keyrings(a.keyrings);
  if (auto k = keyrings.find(tool); k != keyrings.end()) q.extra_keyrings = k->second;
  oci::Platform platform = a.platform.empty() ? oci::host_platform() : check(oci::parse_platform(a.platform));
  if (platform.os != "linux")
    throw Exit{kExitUsage, "--platform " + a.platform + ": strata installs linux releases (linux/amd64, linux/arm64)"};
  q.arch = platform.architecture;
  q.satisfies = npm_range_admits;
  tc::ToolchainRequest request{std::move(q), g.open_options().home, g.offline};
  auto layer = check(tc::ensure_toolchain(http, request));
  auto installed = check(tc::install_dir(layer, a.dir));
  if (g.json) {
    nlohmann::ordered_json j;
    j["tool"] = tool;
    j["release"] = layer.release.version;
    j["source"] = layer.release.source.describe();
    j["root"] = installed.root.string();
    j["env"] = installed.env;
    j["commands"] = installed.commands;
    j["key"] = layer.key;
    j["layer"] = layer.layer.digest.str();
    j["cached"] = layer.cached;
    j["already_installed"] = installed.already;
    j["archives"] = nlohmann::ordered_json::array();
    for (const auto& x : layer.release.archives)
      j["archives"].push_back({{"url", x.url}, {"digest", x.algorithm + ":" + x.hex}, {"verified_by", x.verified_by}});
    std::cout << oci::dump_json(j, 2) << "\n";
    return;
  }
  log_info(g, tool + " " + layer.release.version + (installed.already ? " already in " : " installed in ") +
                  installed.root.string() + " from " + layer.release.source.describe() + " (" +
                  layer.release.archives.front().verified_by + ")");
  for (const auto& e : installed.env) std::cout << shell_export(e) << "\n";
}

}  // namespace

void register_toolchain(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto* cmd = add_command(app, "toolchain", "Task toolchains: pinned runtime releases, verified and cached", "");
  cmd->require_subcommand(1);
  auto a = std::make_shared<InstallArgs>();
  auto* install = add_command(
      *cmd, "install",
      "Install a runtime release into a directory, rootless (the same verified, cached release a provisioned "
      "image's toolchain layer carries)",
      "  strata toolchain install node@22.11.0 --dir .mac-toolchain\n"
      "  strata toolchain install node@20 --dir ~/.toolchains --toolchain-source node=npm\n"
      "  eval \"$(strata -q toolchain install go@1.22 --dir /opt/tc)\"\n"
      "  strata toolchain install java@21 --dir /opt/tc      # Eclipse Temurin's newest 21.x JDK\n"
      "  strata toolchain install dotnet@8.0 --dir /opt/tc   # the newest .NET SDK of the 8.0 channel\n\n"
      "VERSION is X.Y.Z (pinned), a line (22, 3.12, 21: its newest release) or a range (\">=20.4 <21\").\n"
      "Prints `export` lines for PATH and the tool's variables; --json gives them with the release,\n"
      "its archives and how each was verified.\n");
  install->add_option("TOOL@VERSION", a->what, "node@22.11.0, go@1.22, rust@1.79.0, python@3.12, java@21, dotnet@8.0")
      ->required();
  install->add_option("--dir", a->dir, "Where: DIR/<tool>/<version> and links in DIR/bin")->required();
  install->add_option("--toolchain-source", a->sources,
                      "TOOL=URL (a mirror with the official layout) or node=npm|npm:URL (repeatable)");
  install->add_option("--toolchain-keyring", a->keyrings, "TOOL=FILE: another key trusted for TOOL's signatures");
  install->add_option("--platform", a->platform, "os/arch of the release (default: this machine's)");
  install->callback([&g, a, http] { run_install(g, *a, *http); });
}

}  // namespace strata::cli
