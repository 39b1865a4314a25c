// The dpkg and apt database a real install leaves (docs/format/overlay.md):
//   /var/lib/dpkg/status          base stanzas plus one per new package
//                                 (Status: install ok installed, Conffiles
//                                 with md5s), dpkg's field order, sorted by
//                                 package then architecture;
//   /var/lib/dpkg/info/<pkg>[:<arch>].{list,md5sums,conffiles,<scripts>}
//                                 (":<arch>" for Multi-Arch: same);
//   /var/lib/dpkg/status-old      the status dpkg's last run (apt's
//                                 `dpkg --configure`) started from: new
//                                 packages unpacked, triggers they activate
//                                 pending on the base packages interested;
//   /var/lib/apt/extended_states  as apt writes it: base stanzas in their
//                                 order, then Auto-Installed: 1 for every new
//                                 package that was not requested, in apt's
//                                 hash-table order, Architecture: all as the
//                                 native architecture.
// Pure: base state and packages in, effect files out.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "layer/debian/deb822.hpp"
#include "layer/effects/effects.hpp"

namespace strata::layer {

// Writes stanzas back in deb822 form (continuation lines with " ", empty
// ones as " ."), one blank line after each.
std::string format_deb822(const std::vector<Deb822Stanza>& stanzas);

// A status stanza for a package from its control file, its fields byte for
// byte as dpkg keeps them (Deb822Field::raw): dpkg's field order, Status and
// Conffiles (with `conffile_md5`, "newconffile" for a path it lacks) added.
Result<Deb822Stanza> status_stanza(const FragmentInfo& package, std::string_view status,
                                   const std::map<std::string, std::string>& conffile_md5);
// Installed: "install ok installed" and the shipped conffiles' md5s.
Result<Deb822Stanza> status_stanza(const FragmentInfo& package);

// `requested` holds the names the user asked for (auto-installed otherwise);
// `native_arch` is what apt records for Architecture: all packages.
Result<std::vector<EffectFile>> dpkg_database_effects(const oci::ImageFilesystem& base,
                                                      const std::vector<const FragmentInfo*>& packages,
                                                      const std::set<std::string>& requested,
                                                      const std::string& native_arch, std::int64_t epoch);

// "pkg" or "pkg:arch" (Multi-Arch: same), as dpkg names info files.
std::string info_name(const FragmentInfo& package);

}  // namespace strata::layer
