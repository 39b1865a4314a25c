// The base system's installed packages, from dpkg's database: the `status`
// file and/or distroless-style `status.d/<pkg>` control stanzas. Takes file
// contents, not paths, so callers can read them from a directory, a status
// file given on the command line, or an image's layers.
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "layer/debian/package.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct StatusFile {
  std::string origin;    // names the file in errors ("/var/lib/dpkg/status")
  std::string contents;
};

// Installed packages from `status` (stanzas whose Status is installed,
// unpacked, half-configured or triggers-* — those dpkg counts as present;
// not-installed and config-files are skipped) and from `status_d` stanzas
// (no Status field means installed, as scanners treat them). Files in
// status.d whose name ends in ".md5sums" must not be passed. A package
// (name, architecture) listed twice is an error naming both places.
Result<std::vector<Package>> read_dpkg_status(const StatusFile& status,
                                              const std::vector<StatusFile>& status_d = {});

}  // namespace strata::layer
