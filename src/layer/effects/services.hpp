// Service enablement a postinst leaves, without running it, for the units
// and init scripts the new packages ship (first installs):
//   - `update-rc.d NAME defaults` without insserv in the image (sysv-rc's
//     fallback): /etc/rc<level>.d/S01NAME for each level of the script's LSB
//     `Default-Start`, K01NAME for each of `Default-Stop`, → ../init.d/NAME;
//     nothing when the script is not in the layer or links for NAME exist;
//   - `deb-systemd-helper enable UNIT`: for the unit's [Install] section,
//     WantedBy=T → /etc/systemd/system/T.wants/UNIT, RequiredBy=T →
//     T.requires/UNIT, Alias=A → /etc/systemd/system/A, each → the unit's
//     path as the package lists it; Also=U enabled the same way; the state
//     deb-systemd-helper keeps: an empty file mirroring each link under
//     /var/lib/systemd/deb-systemd-helper-enabled/ and UNIT.dsh-also
//     listing the links made for UNIT (its Also units' too), in order.
// Calls whose arguments cannot be read, other actions (disable, mask, …)
// and units or scripts from the base are reported, not reproduced.
#pragma once

#include <string>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

// The LSB header's runlevels: Default-Start, Default-Stop.
std::pair<std::vector<std::string>, std::vector<std::string>> lsb_default_levels(std::string_view init_script);

// A unit file's [Install] keys in order: ("WantedBy", "multi-user.target"), …
// (values split at blanks).
std::vector<std::pair<std::string, std::string>> unit_install_section(std::string_view unit);

Result<Effects> service_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled);

}  // namespace strata::layer
