// TarEntry: one entry of a layer tar (the metadata, never the content), and
// the path rules every strata tar reader and writer shares.
//
// Path convention (docs/format/layer.md): an entry path is relative,
// '/'-separated, with no leading "/" or "./", no trailing "/", no empty, "."
// or ".." components and no NUL ("etc/passwd", "usr/bin"). The root directory
// is the empty path. Writers append "/" to directory names on the wire;
// readers strip it. Plain value type; thread-compatible.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::oci {

enum class TarEntryType { kRegular, kDirectory, kSymlink, kHardlink, kCharDevice, kBlockDevice, kFifo };

std::string_view tar_entry_type_name(TarEntryType type);

struct TarEntry {
  std::string path;              // canonical form (see above)
  TarEntryType type = TarEntryType::kRegular;
  std::uint32_t mode = 0;        // permission bits plus setuid/setgid/sticky (07777)
  std::uint64_t uid = 0;
  std::uint64_t gid = 0;
  std::uint64_t size = 0;        // content bytes; 0 for everything but kRegular
  std::int64_t mtime = 0;        // whole seconds since the epoch
  std::string link_target;       // kSymlink: verbatim target; kHardlink: canonical path
  std::uint32_t dev_major = 0;   // kCharDevice / kBlockDevice only
  std::uint32_t dev_minor = 0;
  std::map<std::string, std::string> xattrs;  // "security.capability" → raw value

  bool operator==(const TarEntry&) const = default;
};

// Turns a name as found in an archive ("./etc/", "etc//passwd", "/x") into the
// canonical form. Refuses NUL bytes and ".." components (kInvalidArgument);
// refuses absolute names unless `allow_absolute` (then the leading "/" is
// dropped). "." and "./" become "" (the root).
Result<std::string> canonical_entry_path(std::string_view name, bool allow_absolute = false);

// True when `path` is already canonical and not the root.
bool is_canonical_entry_path(std::string_view path);

// The order strata writes entries in: component by component, a parent before
// its children, and among siblings whiteouts (".wh.*") first, then bytewise.
// So "a" < "a/b" < "a-b" and "d/.wh.x" < "d/a".
bool tar_path_less(std::string_view a, std::string_view b);

// "a/b/c" → "a/b"; "a" → "".
std::string_view parent_path(std::string_view path);
// "a/b/c" → "c".
std::string_view base_name(std::string_view path);

inline constexpr std::string_view kWhiteoutPrefix = ".wh.";
inline constexpr std::string_view kOpaqueWhiteout = ".wh..wh..opq";

}  // namespace strata::oci
