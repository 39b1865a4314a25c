// System users and groups a postinst creates, without running it: the
// `adduser --system` / `addgroup --system` calls (Debian's adduser 3.13x,
// which calls shadow's groupadd and useradd) read from the script
// (layer/effects/script_expand.hpp), and the `chown`/`chmod` of a directory
// the package ships that follow them, as pure functions.
//
//   - ids: the first free id from the bottom of the system range
//     (FIRST_SYSTEM_UID/GID..LAST_SYSTEM_UID/GID of /etc/adduser.conf, 100..999
//     by default), as adduser's first_avail_uid/gid; `--group` takes a free
//     uid and, separately, a free gid; without --group, --ingroup or --gid the
//     user's group is nogroup;
//   - groupadd: `name:x:gid:` appended to /etc/group and, when the base has
//     /etc/gshadow, `name:!::` to it;
//   - useradd -r: `name:x:uid:gid:gecos:home:shell` appended to /etc/passwd
//     (password `!` there when there is no /etc/shadow), `name:!:days:::::: `
//     to /etc/shadow, days since 1970 of the build's epoch (shadow reads
//     SOURCE_DATE_EPOCH);
//   - each file changed gets its `-` backup, the content before the tool's
//     last change to it, with the file's mode and owner; /etc/.pwd.lock
//     (0600, shadow's lock) and /run/adduser (0644, adduser's) are left
//     behind empty;
//   - a home that is not /nonexistent and without --no-create-home is made
//     0755 (SYS_DIR_MODE) and owned by the user, when the image lacks it.
// Calls that cannot be read (variables not evaluated, options not known,
// non-system users) are reported and change nothing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

struct AccountCall {
  enum class Kind { kGroup, kUser } kind = Kind::kUser;
  std::string name;
  std::string ingroup;              // --ingroup
  std::optional<std::uint64_t> uid, gid;
  bool make_group = false;          // --group
  std::string home;                 // "" → /nonexistent
  bool no_create_home = false;
  std::string shell;                // "" → /usr/sbin/nologin
  std::string gecos;
};

// A postinst's ownership change of a path: `chown U[:G] PATH`, `chmod MODE PATH`.
struct OwnershipCall {
  std::string path;  // absolute, as written
  std::string user, group;  // chown; either may be empty
  std::optional<std::uint32_t> mode;  // chmod, octal only
};

struct AccountScript {
  std::vector<AccountCall> accounts;
  std::vector<OwnershipCall> ownership;
  std::vector<std::string> unreadable;  // calls described, not reproduced
};

AccountScript parse_account_calls(std::string_view script);

// The account files before and after: content and whether each exists.
struct AccountFiles {
  std::optional<std::string> passwd, group, shadow, gshadow;
};

struct AdduserConfig {
  std::uint64_t first_system_uid = 100, last_system_uid = 999, first_system_gid = 100, last_system_gid = 999;
};
AdduserConfig parse_adduser_conf(std::string_view text);

struct AccountsResult {
  AccountFiles files;    // after
  AccountFiles backups;  // the `-` files, for each file changed
  std::vector<std::string> notes;
  std::vector<std::string> failed;  // calls that would fail (no free id, unknown group)
  // Homes to create: path → uid, gid.
  std::vector<std::tuple<std::string, std::uint64_t, std::uint64_t>> homes;
};

// The calls applied in order to `before`. `days` is the shadow last-change
// day. Pure.
AccountsResult apply_account_calls(const AccountFiles& before, const std::vector<AccountCall>& calls,
                                   const AdduserConfig& config, std::int64_t days);

// uid/gid of a name in passwd/group text, nullopt when absent.
std::optional<std::uint64_t> account_file_id(std::string_view text, std::string_view name);

// Everything the new packages' postinsts do with adduser/addgroup, and the
// chown/chmod of their directories.
Result<Effects> accounts_effects(const OverlayView& view, std::int64_t epoch, std::vector<std::string>& handled);

// Base paths the effect reads.
bool accounts_capture(std::string_view path);

}  // namespace strata::layer
