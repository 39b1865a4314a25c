// RewriteRules: how dpkg on a given base would place a package's files, as a
// pure function of the base's state (read once per build):
//   - directory symlinks are followed (a merged-/usr base keeps /bin → usr/bin:
//     "bin/ls" lands on "usr/bin/ls" and no directory entry replaces the link);
//   - directories the base already has are left alone (dpkg keeps their owner
//     and mode), so fragments never emit them;
//   - /etc/dpkg/dpkg.cfg and dpkg.cfg.d/* path-exclude / path-include filters
//     (fnmatch without flags, the last matching filter wins);
//   - /var/lib/dpkg/diversions (a diverted path goes to its diverted-to name
//     unless the package is the one that diverts it);
//   - /var/lib/dpkg/statoverride (owner and mode of listed paths);
//   - mtimes clamped to the epoch.
// hash() names the rules: fragments converted under equal hashes are equal,
// which is what makes the fragment cache sound. Thread-safe after creation.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "oci/image_fs.hpp"

namespace strata::layer {

struct PathFilter {
  bool include = false;
  std::string pattern;  // absolute, as written ("/usr/share/doc/*")
};

struct Diversion {
  std::string from, to;  // canonical entry paths ("usr/bin/foo")
  std::string package;   // ":" for a local diversion
};

struct StatOverride {
  std::uint64_t uid = 0, gid = 0;
  std::uint32_t mode = 0;
};

class RewriteRules {
 public:
  // `fs` must outlive the rules. Unknown user/group names in statoverride
  // are reported in warnings() and the override skipped.
  static Result<RewriteRules> from_base(const oci::ImageFilesystem& fs, std::int64_t epoch);

  // The capture patterns the base filesystem must have been loaded with.
  static std::vector<std::string> capture_patterns();

  // Where a package path (canonical, e.g. "bin/ls") goes in the image:
  // diversion applied, parents resolved through the base's symlinks.
  std::string place(const std::string& path, const std::string& package) const;
  // True when dpkg's filters drop this package path.
  bool excluded(const std::string& path) const;
  // True when the base has a directory (or a symlink to one) at this placed path.
  bool base_has_directory(const std::string& placed) const;
  const StatOverride* stat_override(const std::string& placed) const;

  std::int64_t epoch() const { return epoch_; }
  const std::string& hash() const { return hash_; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  const oci::ImageFilesystem& base() const { return *fs_; }

 private:
  std::string resolve_dir(const std::string& dir) const;

  const oci::ImageFilesystem* fs_ = nullptr;
  std::int64_t epoch_ = 0;
  std::vector<PathFilter> filters_;
  std::map<std::string, Diversion> diversions_;  // by `from`
  std::map<std::string, StatOverride> overrides_;
  std::vector<std::string> warnings_;
  std::string hash_;
};

// Parses dpkg.cfg-style text for path-exclude/path-include lines.
std::vector<PathFilter> parse_path_filters(std::string_view text);
// Parses /var/lib/dpkg/diversions (three lines per diversion).
Result<std::vector<Diversion>> parse_diversions(std::string_view text, std::string_view what);

}  // namespace strata::layer
