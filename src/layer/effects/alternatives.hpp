// update-alternatives without running it: the `--install` calls of postinst
// scripts, parsed, merged with the base's /var/lib/dpkg/alternatives/ admin
// files, and turned into the links and admin files dpkg's
// update-alternatives would leave in auto mode (utils/update-alternatives.c):
//   - the best choice is the highest priority (ties: the first by path);
//   - LINK → /etc/alternatives/NAME → choice; a slave's links exist only
//     when the best choice provides a slave target that exists;
//   - admin file: mode, master link, slave name/link pairs sorted by name,
//     blank line, then per choice (sorted by path) path, priority and one
//     line per slave target, then a blank line.
// A group in manual mode in the base keeps its selection (only its admin
// file changes). Calls using shell variables or command substitution cannot
// be followed and are reported. Pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

struct AlternativeSlave {
  std::string link, name, path;
};

struct AlternativeInstall {
  std::string link, name, path;  // absolute paths as written
  int priority = 0;
  std::vector<AlternativeSlave> slaves;
};

// The --install calls in a maintainer script. Calls that cannot be read
// literally are described in `unreadable`.
std::vector<AlternativeInstall> parse_alternative_installs(std::string_view script,
                                                           std::vector<std::string>& unreadable);

struct AlternativeChoice {
  int priority = 0;
  std::map<std::string, std::string> slave_paths;  // slave name → target
};

struct AlternativeGroup {
  std::string name;
  bool manual = false;
  std::string link;
  std::map<std::string, std::string> slave_links;  // slave name → link
  std::map<std::string, AlternativeChoice> choices;  // by path
};

Result<AlternativeGroup> parse_alternative_admin(std::string_view name, std::string_view text);
std::string format_alternative_admin(const AlternativeGroup& group);

// Everything the postinsts of `view.packages()` would do with update-alternatives.
Result<Effects> alternatives_effects(const OverlayView& view, std::int64_t epoch);

}  // namespace strata::layer
