// `strata resolve PKG… [--base REF | --status FILE] [--sources FILE]…
// [--platform P] [--lock-out FILE] [--json] [--allow-unsigned-archive]`:
// what apt-get install --no-install-recommends would add to the base, as
// "NAME VERSION ARCH" lines sorted by name. A thin shell over layer::
// (load_archive, read_dpkg_status, Resolver, write_lock).
#pragma once

#include <filesystem>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "layer/package.hpp"
#include "oci/http/transport.hpp"
#include "util/clock.hpp"

namespace strata::cli {

struct ResolveCommandDeps {
  std::shared_ptr<oci::http::Transport> transport;  // REQUIRED (main: Retry over Curl)
  Clock* clock = nullptr;                           // default: system_clock()
  // $STRATA_HOME as main resolved it (--home, env, XDG default).
  std::function<std::filesystem::path()> home;
  // Installed packages of a base image for --base REF on the target
  // platform (e.g. from its layers' dpkg database via
  // layer::read_dpkg_status). Unset: --base is refused with a clear message.
  std::function<Result<std::vector<layer::Package>>(const std::string& ref, const std::string& platform)> read_base;
  // Digest of --base REF for the lock (optional).
  std::function<Result<std::string>(const std::string& ref, const std::string& platform)> base_digest;
  std::ostream* out = nullptr;  // default std::cout
  std::ostream* err = nullptr;  // default std::cerr
  std::filesystem::path apt_dir = "/etc/apt";
};

// Adds `resolve` to `app`; when it runs, sets exit_code (0 ok, 1 failure with
// a one-line-per-reason message on stderr). Usage errors are CLI11's (2).
CLI::App* register_resolve(CLI::App& app, ResolveCommandDeps deps, int& exit_code);

// "linux/arm64" → "arm64", "linux/arm/v7" → "armhf", "linux/386" → "i386"…
Result<std::string> debian_arch_for_platform(const std::string& platform);

}  // namespace strata::cli
