#include "cli/cmd_resolve.hpp"

#include <nlohmann/json.hpp>

#include <iostream>

#include "layer/archive.hpp"
#include "layer/dpkg_status.hpp"
#include "layer/lock_file.hpp"
#include "layer/resolver.hpp"
#include "oci/platform.hpp"
#include "util/fs.hpp"

namespace strata::cli {

namespace stdfs = std::filesystem;

Result<std::string> debian_arch_for_platform(const std::string& text) {
  STRATA_TRY(oci::Platform p, oci::parse_platform(text));
  if (p.os != "linux") return fail(ErrorCode::kInvalidArgument, "--platform " + text + ": Debian images are linux only");
  const std::string& a = p.architecture;
  if (a == "amd64" || a == "arm64" || a == "s390x" || a == "riscv64") return a;
  if (a == "386") return std::string("i386");
  if (a == "ppc64le") return std::string("ppc64el");
  if (a == "mips64le") return std::string("mips64el");
  if (a == "arm") return std::string(p.variant == "v5" ? "armel" : "armhf");
  return fail(ErrorCode::kInvalidArgument, "--platform " + text + ": no Debian architecture for '" + a + "'");
}

namespace {

struct ResolveArgs {
  std::vector<std::string> packages;
  std::string base, status, platform, lock_out;
  std::vector<std::string> sources;
  bool json = false;
  bool allow_unsigned = false;
};

stdfs::path default_home() {
  if (const char* h = std::getenv("STRATA_HOME"); h && *h) return h;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return stdfs::path(x) / "strata";
  const char* home = std::getenv("HOME");
  return stdfs::path(home ? home : "/tmp") / ".cache/strata";
}

Result<void> run(const ResolveArgs& a, const ResolveCommandDeps& d, std::ostream& out, std::ostream& err) {
  if (!d.transport) return fail(ErrorCode::kInvalidArgument, "resolve: no HTTP transport configured");
  if (!a.base.empty() && !a.status.empty()) return fail(ErrorCode::kInvalidArgument, "--base and --status are exclusive");
  std::string platform = a.platform;
  if (platform.empty()) {
    oci::Platform h = oci::host_platform();
    platform = h.os + "/" + h.architecture + (h.variant.empty() ? "" : "/" + h.variant);
  }
  if (platform.find(',') != std::string::npos)
    return fail(ErrorCode::kInvalidArgument, "--platform: resolve takes one platform; run it once per platform");
  STRATA_TRY(std::string arch, debian_arch_for_platform(platform));
  std::vector<layer::AptSource> sources;
  if (a.sources.empty()) {
    STRATA_TRY(sources, layer::load_host_sources(d.apt_dir));
  }
  for (const auto& f : a.sources) {
    STRATA_TRY(auto v, layer::load_sources_file(f));
    sources.insert(sources.end(), v.begin(), v.end());
  }
  std::vector<layer::Package> installed;
  std::string base_digest;
  if (!a.status.empty()) {
    STRATA_TRY(std::string text, fs::read_file(a.status, 1ull << 31));
    STRATA_TRY(installed, layer::read_dpkg_status({a.status, std::move(text)}));
  } else if (!a.base.empty()) {
    if (!d.read_base)
      return fail(ErrorCode::kUnsupported, "--base " + a.base + ": reading a base image's dpkg database is not "
                                                               "available in this build; use --status FILE");
    STRATA_TRY(installed, d.read_base(a.base, platform));
    if (d.base_digest) {
      STRATA_TRY(base_digest, d.base_digest(a.base, platform));
    }
  }
  layer::ArchiveOptions ao;
  ao.home = d.home ? d.home() : default_home();
  ao.arch = arch;
  ao.clock = d.clock ? d.clock : &system_clock();
  ao.allow_unsigned = a.allow_unsigned;
  ao.apt_dir = d.apt_dir;
  STRATA_TRY(layer::LoadedArchive archive, layer::load_archive(*d.transport, sources, ao));
  for (const auto& w : archive.warnings) err << w << "\n";
  layer::ResolveOptions ro;
  ro.native_arch = arch;
  // Deliberately never freed: the resolver holds every package of every
  // index (~1M small allocations for bookworm), and freeing them one by one
  // cost a quarter of a warm resolve; the process exits right after.
  layer::Resolver& resolver = *new layer::Resolver(ro);
  std::vector<std::size_t> origin_source;
  for (auto& idx : archive.indexes) {
    resolver.add_index(std::move(idx.packages), archive.sources[idx.source].priority);
    origin_source.push_back(idx.source);
  }
  resolver.set_installed(std::move(installed));
  STRATA_TRY(layer::Resolution res, resolver.resolve(a.packages));
  for (const auto& n : res.notes) err << n << "\n";
  if (!a.lock_out.empty()) {
    layer::Lock lock;
    lock.platform = platform;
    lock.base_reference = a.base;
    lock.base_digest = base_digest;
    lock.request = a.packages;
    for (const auto& s : archive.sources)
      lock.sources.push_back({s.source.uri, s.source.suite, s.source.components, s.release_sha256,
                              s.release.date.value_or(0), s.fingerprint});
    for (const auto& p : res.install)
      lock.packages.push_back({p.package.name, p.package.version, p.package.architecture, p.package.filename,
                               p.package.size, p.package.sha256, origin_source[p.origin]});
    STRATA_TRY_VOID(fs::write_file_atomic(a.lock_out, layer::write_lock(std::move(lock))));
  }
  if (a.json) {
    nlohmann::json j;
    j["packages"] = nlohmann::json::array();
    for (const auto& p : res.install) {
      nlohmann::json e{{"name", p.package.name}, {"version", p.package.version}, {"architecture", p.package.architecture}};
      if (!p.installed_version.empty()) e["upgrade_from"] = p.installed_version;
      j["packages"].push_back(std::move(e));
    }
    if (!a.lock_out.empty()) j["lock"] = a.lock_out;
    out << j.dump(2) << "\n";
  } else {
    for (const auto& p : res.install)
      out << p.package.name << " " << p.package.version << " " << p.package.architecture << "\n";
  }
  return {};
}

}  // namespace

CLI::App* register_resolve(CLI::App& app, ResolveCommandDeps deps, int& exit_code) {
  auto args = std::make_shared<ResolveArgs>();
  CLI::App* sub = app.add_subcommand("resolve", "What apt-get install --no-install-recommends PKG… would install");
  sub->footer(
      "Prints NAME VERSION ARCH per package, sorted by name; packages already in the base are not listed.\n\n"
      "Examples:\n"
      "  strata resolve build-essential libpq-dev --status /var/lib/dpkg/status\n"
      "  strata resolve nodejs npm --sources bookworm.sources --platform linux/arm64 --lock-out node.lock");
  sub->add_option("packages", args->packages, "Packages (NAME, NAME:ARCH or NAME=VERSION)")->required();
  sub->add_option("--base", args->base, "Base image whose dpkg database is the installed state");
  sub->add_option("--status", args->status, "dpkg status file giving the installed state")->check(CLI::ExistingFile);
  sub->add_option("--sources", args->sources, "apt sources file (.list or .sources); replaces the host's")
      ->check(CLI::ExistingFile);
  sub->add_option("--platform", args->platform, "Target platform, e.g. linux/arm64 (default: the host's)");
  sub->add_option("--lock-out", args->lock_out, "Write the YAML lock of the result to FILE");
  sub->add_flag("--json", args->json, "Print one JSON document");
  sub->add_flag("--allow-unsigned-archive", args->allow_unsigned, "Accept sources marked Trusted: yes (unverified)");
  sub->callback([args, deps, &exit_code] {
    std::ostream& out = deps.out ? *deps.out : std::cout;
    std::ostream& err = deps.err ? *deps.err : std::cerr;
    auto r = run(*args, deps, out, err);
    if (!r) {
      err << "strata resolve: " << r.error().message() << "\n";
      exit_code = 1;
      return;
    }
    exit_code = 0;
  });
  return sub;
}

}  // namespace strata::cli
