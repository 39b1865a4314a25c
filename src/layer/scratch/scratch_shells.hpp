// /etc/shells and /var/lib/shells.state as debianutils' update-shells leaves
// them on a fresh merged-/usr install: the template
// (/usr/share/debianutils/shells) copied, then every shell the template and
// /usr/share/debianutils/shells.d/* (in name order) declare, then each
// one's merged-/usr twin (`/bin/bash` → `/usr/bin/bash`) — the order
// mmdebstrap's roots show, where the twins are added once usrmerge has run.
// The state file lists the declared shells each followed by its twin.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::layer {

struct Shells {
  std::string etc_shells;
  std::string state;
};

// `declared`: (file name, content) of the shells.d files. `real_dir` maps a
// directory ("/bin") to its canonical path in the image ("/usr/bin").
Shells update_shells(std::string_view template_text, const std::vector<std::pair<std::string, std::string>>& declared,
                     const std::function<std::string(const std::string&)>& real_dir);

}  // namespace strata::layer
