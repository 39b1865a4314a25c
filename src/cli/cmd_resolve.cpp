// strata resolve PKG… [--base REF | --status FILE] [--sources FILE]… [--platform P] [--lock-out FILE]
//                [--index-max-age DURATION]
#include <iostream>

#include "cli/commands.hpp"
#include "layer/apt/resolve_request.hpp"
#include "layer/debian/dpkg_status.hpp"
#include "layer/overlay/base_state.hpp"
#include "util/fs.hpp"
#include "util/terminal_text.hpp"

namespace strata::cli {

namespace {

struct ResolveArgs {
  std::vector<std::string> packages;
  std::string base, status, platform, lock_out;
  std::vector<std::string> sources;
  bool allow_unsigned = false;
  std::string index_max_age = kDefaultIndexMaxAge;
};

void run_resolve(const GlobalOptions& g, const ResolveArgs& a, oci::http::Transport& http) {
  if (!a.base.empty() && !a.status.empty()) throw Exit{kExitUsage, "--base and --status exclude each other"};
  if (a.platform.find(',') != std::string::npos) {
    throw Exit{kExitUsage, "--platform: resolve takes one platform; run it once per platform"};
  }
  layer::ResolveRequest req;
  req.packages = a.packages;
  req.platform = a.platform.empty() ? oci::host_platform() : check(oci::parse_platform(a.platform));
  req.sources = check(layer::load_sources(a.sources));
  std::filesystem::path home = g.open_options().home;
  std::string dpkg_arch;
  if (!a.status.empty()) {
    auto text = check(fs::read_file(a.status, std::uint64_t{1} << 31));
    req.installed = check(layer::read_dpkg_status({a.status, std::move(text)}));
  } else if (!a.base.empty()) {
    // The base's dpkg state once per manifest digest (layer/overlay/base_state.hpp).
    auto opened = open_ref(g, a.base, oci::Access::kRead);
    layer::BaseStateCache states(home / "basestate");
    layer::BaseFsCache filesystems(home / "basefs");
    auto base = check(layer::load_base_state(*opened.store, opened.ref, req.platform, &states, &filesystems));
    req.installed = std::move(base.state.installed);
    dpkg_arch = std::move(base.state.dpkg_arch);
    req.base_reference = a.base;
    req.base_digest = base.descriptor.digest.str();
  }
  // The architectures apt on the base would index, as strata build has them.
  req.foreign_archs = layer::foreign_architectures(check(layer::debian_arch(req.platform)), dpkg_arch, req.installed,
                                                   req.packages);
  req.archive.home = home;
  req.archive.allow_unsigned = a.allow_unsigned;
  req.archive.offline = g.offline;
  req.archive.index_max_age = index_max_age(a.index_max_age);
  req.archive.on_fetch = [&g](const std::string& m) { log_info(g, m); };
  auto resolved = check(layer::resolve_request(http, std::move(req)));
  for (const auto& w : resolved.warnings) log_info(g, w);
  if (!a.lock_out.empty()) check(fs::write_file_atomic(a.lock_out, layer::write_lock(resolved.lock)));
  const auto& install = resolved.resolution.install;
  if (g.json) {
    nlohmann::ordered_json j;
    j["packages"] = nlohmann::ordered_json::array();
    for (const auto& p : install) {
      nlohmann::ordered_json e{{"name", p.package.name}, {"version", p.package.version},
                               {"architecture", p.package.architecture}};
      if (!p.installed_version.empty()) e["upgrade_from"] = p.installed_version;
      j["packages"].push_back(std::move(e));
    }
    if (!a.lock_out.empty()) j["lock"] = a.lock_out;
    std::cout << oci::dump_json(j, 2) << "\n";
    return;
  }
  // Names and versions as the archive's index spells them: terminal_safe.
  for (const auto& p : install)
    std::cout << terminal_safe(p.package.name + " " + p.package.version + " " + p.package.architecture) << "\n";
}

}  // namespace

void register_resolve(CLI::App& app, GlobalOptions& g, std::shared_ptr<oci::http::Transport> http) {
  auto a = std::make_shared<ResolveArgs>();
  auto* cmd = add_command(app, "resolve", "What apt-get install --no-install-recommends PKG… would install",
                          "  strata resolve build-essential libpq-dev --status /var/lib/dpkg/status\n"
                          "  strata resolve libvips-dev --base docker://docker.io/library/debian:bookworm\n"
                          "  strata resolve nodejs npm --sources bookworm.sources --platform linux/arm64 --lock-out node.lock\n\n"
                          "Prints NAME VERSION ARCH per package, sorted by name; packages already in the base are\n"
                          "not listed (an upgraded one is).\n");
  cmd->add_option("packages", a->packages, "Packages (NAME, NAME:ARCH or NAME=VERSION)")->required();
  cmd->add_option("--base", a->base, "Base image whose dpkg database is the installed state");
  cmd->add_option("--status", a->status, "dpkg status file giving the installed state")->check(CLI::ExistingFile);
  cmd->add_option("--sources", a->sources, "apt sources file (.list or .sources); replaces the host's")
      ->check(CLI::ExistingFile);
  cmd->add_option("--platform", a->platform, "Target platform, e.g. linux/arm64 (default: the host's)");
  cmd->add_option("--lock-out", a->lock_out, "Write the YAML lock of the result to FILE");
  cmd->add_flag("--allow-unsigned-archive", a->allow_unsigned, "Accept sources marked Trusted: yes (unverified)");
  add_index_max_age(cmd, a->index_max_age);
  cmd->callback([&g, a, http] { run_resolve(g, *a, *http); });
}

}  // namespace strata::cli
