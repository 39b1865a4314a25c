// Users and groups of a scratch root, as base-passwd's postinst and
// passwd's `shadowconfig on` leave them on a fresh install:
//   /etc/passwd, /etc/group     the master files with the password field "x";
//   /etc/shadow                 name:<master password>:<day>:0:99999:7::: ;
//   /etc/gshadow                name:<master password>::<members> ;
// shadow files 0640 root:shadow (the shadow group's id from group.master).
// <day> is the last-change day, fixed to the epoch's day (pwconv would
// write today's) so the build stays reproducible.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

// `passwd_master` / `group_master` are the files' contents; `what` names the
// package they came from, for errors about malformed lines.
Result<std::vector<EffectFile>> account_effects(std::string_view passwd_master, std::string_view group_master,
                                                std::int64_t epoch, std::string_view what);

// The numeric id of `name` in passwd- or group-format text.
std::optional<std::uint64_t> account_id(std::string_view text, std::string_view name);

}  // namespace strata::layer
