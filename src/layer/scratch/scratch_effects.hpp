// The effects that make a scratch image a Debian root filesystem: what the
// essential packages' maintainer scripts and mmdebstrap leave besides the
// packages' data, the dpkg database and alternatives (which the overlay
// builder already writes). Reproduced deterministically from the packages'
// own files:
//   - the merged-/usr skeleton (scratch_base.hpp);
//   - users and groups from base-passwd's master files (scratch_accounts.hpp);
//   - /etc/shells and /var/lib/shells.state (debianutils' update-shells);
//   - base-files' postinst: /etc/profile, /etc/motd, /root/.profile,
//     /root/.bashrc, /usr/share/info/dir from /usr/share/base-files, the
//     /usr/local tree, /mnt /srv /opt /media /etc/opt /var/opt, /var/mail
//     (2775 root:mail), /var/spool/mail → ../mail, /run/lock 1777,
//     /etc/dpkg/origins/default → debian, empty /var/log/{wtmp,btmp,lastlog};
//   - /tmp 1777, an empty /etc/machine-id, dpkg's admin files (arch,
//     available, diversions, statoverride), and
//     /etc/apt/sources.list.d/strata.sources naming the sources used.
// Script effects it does not reproduce are listed (scratch_unreproduced);
// script effects it does reproduce are taken off the overlay builder's list.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "layer/effects/effects.hpp"
#include "layer/apt/lock_file.hpp"

namespace strata::layer {

// Bump when a scratch root changes for the same inputs (these effects, the
// skeleton, the package set): part of a scratch overlay's cache key.
inline constexpr int kScratchRecipe = 1;

struct ScratchEffectsInput {
  std::map<std::string, std::filesystem::path> debs;  // package name → verified .deb
  std::vector<LockSource> sources;
  std::string debian_arch = "amd64";
  std::int64_t epoch = 0;
};

// `unreproduced` is the overlay builder's list; entries these effects cover
// are removed from it, and what a minbase root has that they do not make is
// added.
Result<Effects> scratch_effects(const OverlayView& view, const ScratchEffectsInput& input,
                                std::vector<std::string>& unreproduced);

// The deb822 sources file for the lock's sources (Signed-By: fingerprint).
std::string scratch_sources_file(const std::vector<LockSource>& sources);

}  // namespace strata::layer
