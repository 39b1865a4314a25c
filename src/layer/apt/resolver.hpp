// apt-faithful package resolution: what `apt-get install
// --no-install-recommends REQUEST…` (apt's classic solver, as in Debian 12)
// would mark for installation on top of a set of installed packages.
//
// Why not a SAT solver: apt's answer is the result of a greedy walk
// (candidates only; or-groups tried left to right unless already satisfied;
// providers ordered by apt's CompareProviders; installed packages kept unless
// a versioned dependency forces an upgrade). A SAT solver finds *a* solution,
// often a different one. This class reproduces the walk
// (apt's pkgDepCache::MarkInstall) over apt's data model: packages keyed by
// (name, architecture), one candidate each, chosen by pin priority.
//
// Usage: add indexes in apt source order, set the installed packages, call
// resolve() once. Not thread-safe. Packages are copied in; results refer to
// them by value. The model is built lazily: a name's entries (every
// version, from every source) are made the first time the walk looks at
// it, numbered as the whole archive would number them, so the answer is
// the one a model of every package gives.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "layer/apt/name_index.hpp"
#include "layer/debian/package.hpp"
#include "util/error.hpp"

namespace strata::layer {

struct ResolveOptions {
  std::string native_arch = "amd64";
  std::vector<std::string> foreign_archs;  // apt's APT::Architectures beyond the native one
};

// apt's foreign architectures for a target: those dpkg on the base knows
// (`/var/lib/dpkg/arch`, one a line; `dpkg_arch` is its text, empty when
// absent), those of packages installed on it, and those requests name
// (`name:arch`). Never the native one, "all", "any" or "native"; sorted.
std::vector<std::string> foreign_architectures(const std::string& native_arch, std::string_view dpkg_arch,
                                               const std::vector<Package>& installed,
                                               const std::vector<std::string>& requests);

struct ResolvedPackage {
  Package package;
  std::size_t origin = 0;         // index of the add_index() call it will be fetched from
  std::string installed_version;  // non-empty: an upgrade of an installed package
};

struct Resolution {
  std::vector<ResolvedPackage> install;  // sorted by name, then architecture
  std::vector<std::string> notes;        // apt's "Note, selecting X instead of Y" lines
};

class Resolver {
 public:
  explicit Resolver(ResolveOptions options);
  ~Resolver();
  Resolver(const Resolver&) = delete;
  Resolver& operator=(const Resolver&) = delete;

  // Adds one Packages index. `priority` is the apt pin priority of its
  // Release (500 normal, 1 NotAutomatic, 100 NotAutomatic+ButAutomaticUpgrades).
  // Call in apt's source order; returns the origin number used in results.
  std::size_t add_index(std::vector<Package> packages, int priority);
  // The same for an index read by name (name_index.hpp): only the packages
  // the walk reaches are decoded, so a small request costs little however
  // large the archive.
  std::size_t add_index(std::shared_ptr<const NameIndex> index, int priority);
  // The base state (dpkg status). Installed versions carry priority 100.
  void set_installed(std::vector<Package> installed);

  // Requests are "name", "name:arch" or "name=version". Fails with apt-like
  // text when a request cannot be found or its dependencies cannot be met.
  // REQUIRES: called once.
  Result<Resolution> resolve(const std::vector<std::string>& requests);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace strata::layer
