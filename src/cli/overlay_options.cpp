#include "cli/overlay_options.hpp"

#include <cstdlib>
#include <iostream>

#include "layer/import/import.hpp"

namespace strata::cli {

void add_overlay_options(CLI::App* cmd, OverlayFlags& f) {
  cmd->add_option("packages", f.packages, "Packages to add (NAME, NAME:ARCH or NAME=VERSION)");
  cmd->add_option("--base", f.base, "Base image reference, or scratch: a Debian root from the archive alone")
      ->required();
  cmd->add_option("--variant", f.variant,
                  "--base scratch: the package set, essential or minbase (default; as mmdebstrap names them)");
  cmd->add_option("--lock", f.locks,
                  "Build exactly this lock (reads no index); repeat it with one lock per platform for a "
                  "multi-platform overlay")
      ->check(CLI::ExistingFile);
  cmd->add_option("--lock-out", f.lock_out, "Write the lock used to FILE (FILE.<os>-<arch> per platform for several)");
  cmd->add_option("--sources", f.sources, "apt sources file (.list or .sources); replaces the host's. With --lock: a mirror "
                  "(http:// or file://) of the lock's sources to fetch its .debs from, checked by the lock's hashes")
      ->check(CLI::ExistingFile);
  cmd->add_option("--platform", f.platform, "Target platform(s), comma-separated (default: this machine's)");
  cmd->add_option("--compression", f.compression, "Layer compression: gzip (default), zstd, or none (plain tar, for a layout on the same machine)");
  cmd->add_option("--max-age", f.max_age, "Rebuild a cached overlay whose archive snapshot is older (e.g. 7d)");
  cmd->add_flag("--allow-unsigned-archive", f.allow_unsigned, "Accept sources marked Trusted: yes (unverified)");
  cmd->add_flag("--strict", f.strict,
                "Refuse a --lock resolved on another base than --base (without it: one warning line naming both digests)");
  add_index_max_age(cmd, f.index_max_age);
}

layer::OverlaySpec overlay_spec(const GlobalOptions& g, const OverlayFlags& f, oci::OpenedStore& base) {
  layer::OverlaySpec spec;
  spec.base = f.base;
  spec.packages = f.packages;
  for (const auto& l : f.locks) spec.locks.emplace_back(l);
  spec.sources = f.sources;
  if (!f.platform.empty()) spec.platforms = check(oci::parse_platforms(f.platform));
  spec.compression = check(oci::parse_compression(f.compression));
  spec.variant = check(layer::parse_scratch_variant(f.variant));
  spec.allow_unsigned = f.allow_unsigned;
  if (const char* v = std::getenv("SOURCE_DATE_EPOCH"); v && *v) spec.epoch = check(layer::parse_source_date_epoch(v));
  if (!spec.scratch()) {
    base = open_ref(g, f.base, oci::Access::kRead);
    spec.base_store = base.store.get();
    spec.base_ref = base.ref;
  }
  return spec;
}

void check_lock_bases(const GlobalOptions& /*g*/, const OverlayFlags& f, const layer::OverlayPlan& plan) {
  for (const auto& m : plan.base_mismatches) {
    if (f.strict) {
      throw Exit{kExitFailure, m + "; refused (--strict): resolve the lock again on this base (strata resolve --base " +
                                   f.base + " PKG… --lock-out FILE), or build on the base the lock names"};
    }
    // A warning, not progress: said under -q too.
    std::cerr << "strata: warning: " << m << "; the overlay is built on a base its lock was not resolved for "
              << "(--strict refuses this)\n";
  }
}

}  // namespace strata::cli
