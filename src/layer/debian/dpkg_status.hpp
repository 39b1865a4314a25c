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

namespace strata::oci {
class ImageFilesystem;
}

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

// One installed package with what a bill of materials says of it besides
// the fields resolution needs: who maintains it, its upstream home, and
// the file of the database that lists it.
struct InstalledPackage {
  Package package;
  std::string maintainer;  // "Name <email>", verbatim; empty when absent
  std::string homepage;    // verbatim; empty when absent
  std::string origin;      // StatusFile::origin of the file that lists it
};
// read_dpkg_status with those fields; the same rules and errors.
Result<std::vector<InstalledPackage>> read_installed_packages(const StatusFile& status,
                                                              const std::vector<StatusFile>& status_d = {});

// An image's dpkg database: `var/lib/dpkg/status` and, distroless-style,
// `var/lib/dpkg/status.d/*` (its ".md5sums" files skipped), read from an
// image filesystem that captured them (dpkg_database_capture()). `present`
// is false when the image has neither.
struct ImageDpkgDatabase {
  bool present = false;
  std::vector<InstalledPackage> packages;
};
Result<ImageDpkgDatabase> read_image_dpkg_database(const oci::ImageFilesystem& fs);
// The capture patterns of the database's files, for oci::capture_paths.
std::vector<std::string> dpkg_database_capture();

}  // namespace strata::layer
