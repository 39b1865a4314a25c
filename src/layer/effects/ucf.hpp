// Configuration files a postinst installs with ucf, and the PHP modules
// Debian's PHP packages enable, without running any script (first installs):
//   - `ucf SRC DEST` (after the script's loops and variables are expanded):
//     DEST gets SRC's content when it is not in the image yet (ucf keeps an
//     existing file); /var/lib/ucf/hashfile records "MD5  DEST" and
//     `ucfr [--force] PKG DEST` /var/lib/ucf/registry "PKG \t DEST", after the
//     base's lines;
//   - PHP (php-maintscript-helper's `php_invoke enmod VERSION ALL|SAPI MOD`,
//     and a SAPI package's loop over `phpquery -M`): every module in
//     /etc/php/VERSION/mods-available is enabled for every SAPI listed in
//     /usr/lib/php/VERSION/sapi/ whose conf.d exists — the link
//     /etc/php/VERSION/SAPI/conf.d/PRIORITY-MOD.ini → /etc/php/VERSION/mods-available/MOD.ini
//     (PRIORITY from the ini's "; priority=NN", else 20), the state file
//     /var/lib/php/modules/VERSION/SAPI/enabled_by_maint/MOD and the registry
//     file /var/lib/php/modules/VERSION/registry/MOD — unless the module has a
//     link or a disabled_by_* state in the base already.
// A ucf call whose arguments cannot be read, or whose source the package does
// not ship, is reported, not reproduced.
#pragma once

#include <string>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

Result<Effects> ucf_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled);

}  // namespace strata::layer
