// The whole "what would apt install" pipeline as one pure-ish function:
// sources → verified archive → apt-faithful resolution → lock. `strata
// resolve` prints its result and `strata build` builds from its lock, so
// both answer exactly the same question the same way.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "layer/apt/apt_sources.hpp"
#include "layer/apt/archive.hpp"
#include "layer/apt/lock_file.hpp"
#include "layer/apt/resolver.hpp"
#include "oci/http/transport.hpp"
#include "oci/platform.hpp"

namespace strata::layer {

struct ResolveRequest {
  std::vector<std::string> packages;    // NAME, NAME:ARCH or NAME=VERSION
  std::vector<AptSource> sources;
  oci::Platform platform;
  std::vector<Package> installed;       // the base's dpkg state
  std::vector<std::string> foreign_archs;  // Debian architectures also indexed and installable
  std::string base_reference, base_digest;  // recorded in the lock
  ArchiveOptions archive;               // home, clock, allow_unsigned, apt_dir; arch is set from `platform`
  // Requests that depend on the archive itself (a scratch root's Essential
  // set); merged with `packages`, sorted and de-duplicated, and recorded in
  // the lock's request so a lock build reads no index.
  std::function<Result<std::vector<std::string>>(const LoadedArchive& archive, const std::string& arch)> more_requests;
};

struct ResolvedRequest {
  Resolution resolution;
  Lock lock;                            // exactly what write_lock/parse_lock round-trip
  std::vector<std::string> warnings;    // archive warnings, apt-style notes
};

Result<ResolvedRequest> resolve_request(oci::http::Transport& transport, ResolveRequest request);

// The apt sources to use: `files` when given (each .list, .sources or
// sniffed), else the host's under `apt_dir`.
Result<std::vector<AptSource>> load_sources(const std::vector<std::string>& files,
                                            const std::filesystem::path& apt_dir = "/etc/apt");

// Debian's name for a platform's architecture: linux/arm64 → arm64,
// linux/arm/v7 → armhf, linux/386 → i386…
Result<std::string> debian_arch(const oci::Platform& platform);

}  // namespace strata::layer
