// The dpkg and apt database a real install leaves (docs/format/overlay.md):
//   /var/lib/dpkg/status          base stanzas plus one per new package
//                                 (Status: install ok installed, Conffiles
//                                 with md5s), dpkg's field order, sorted by
//                                 package then architecture;
//   /var/lib/dpkg/info/<pkg>[:<arch>].{list,md5sums,conffiles,<scripts>}
//                                 (":<arch>" for Multi-Arch: same);
//   /var/lib/apt/extended_states  base stanzas plus Auto-Installed: 1 for
//                                 every new package that was not requested.
// Pure: base state and packages in, effect files out.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "layer/debian/deb822.hpp"
#include "layer/effects/effects.hpp"

namespace strata::layer {

// Writes stanzas back in deb822 form (continuation lines with " ", empty
// ones as " ."), one blank line after each.
std::string format_deb822(const std::vector<Deb822Stanza>& stanzas);

// A status stanza for a package from its control file: dpkg's field order,
// Status and Conffiles added.
Result<Deb822Stanza> status_stanza(const FragmentInfo& package);

// `requested` holds the names the user asked for (auto-installed otherwise).
Result<std::vector<EffectFile>> dpkg_database_effects(const oci::ImageFilesystem& base,
                                                      const std::vector<const FragmentInfo*>& packages,
                                                      const std::set<std::string>& requested, std::int64_t epoch);

// "pkg" or "pkg:arch" (Multi-Arch: same), as dpkg names info files.
std::string info_name(const FragmentInfo& package);

}  // namespace strata::layer
