// The options `strata build` and `strata key` share, and the overlay spec
// (layer/build/overlay_spec.hpp) they name.
#pragma once

#include <string>
#include <vector>

#include "cli/app.hpp"
#include "layer/build/overlay_plan.hpp"
#include "layer/build/overlay_spec.hpp"

namespace strata::cli {

struct OverlayFlags {
  std::string base;
  std::vector<std::string> packages;
  std::string dest;
  std::vector<std::string> locks;
  std::string lock_out;
  std::vector<std::string> sources;
  std::string platform;
  std::string compression = "gzip";
  std::string max_age;
  std::string index_max_age = kDefaultIndexMaxAge;
  bool allow_unsigned = false;
  bool no_attestations = false;  // build --no-attestations: no SBOM or provenance attached
  bool strict = false;  // --strict: a --lock resolved on another base is refused, not warned of
  std::string variant = "minbase";  // --base scratch: essential | minbase
};

// Adds the shared options to `cmd`.
void add_overlay_options(CLI::App* cmd, OverlayFlags& f);

// Each --lock resolved on another base than --base gives (plan.base_mismatches):
// one warning line on stderr each, or with --strict the end of the command.
void check_lock_bases(const GlobalOptions& g, const OverlayFlags& f, const layer::OverlayPlan& plan);

// The spec the flags name, with the base store opened into `base` (which
// must outlive the spec; untouched for --base scratch).
layer::OverlaySpec overlay_spec(const GlobalOptions& g, const OverlayFlags& f, oci::OpenedStore& base);

}  // namespace strata::cli
