// Effects: the files a real `apt-get install` leaves besides the packages'
// own data (dpkg database, alternatives links, ld.so.cache), as plain values
// produced by pure functions and written after the fragments. Also the
// vocabulary for what strata does not reproduce.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "layer/deb/fragment.hpp"
#include "oci/image_fs.hpp"
#include "oci/tar_entry.hpp"

namespace strata::layer {

struct EffectFile {
  oci::TarEntry entry;  // path canonical; size set for regular files
  std::string content;
};

struct Effects {
  std::vector<EffectFile> files;
  std::vector<std::string> unreproduced;  // "pkg: postinst runs adduser (not reproduced)"
  std::vector<std::string> notes;         // informational
};

// What the build knows about the image after the layer: the base plus every
// fragment's output entries.
class OverlayView {
 public:
  OverlayView(const oci::ImageFilesystem& base, const RewriteRules& rules,
              const std::vector<const FragmentInfo*>& packages);
  // True when the placed path exists in the layer or (followed) in the base.
  bool exists(const std::string& placed) const;
  // The layer's entry at a placed path, or nullptr.
  const FragmentEntry* layer_entry(const std::string& placed) const;
  const RewriteRules& rules() const { return rules_; }
  const oci::ImageFilesystem& base() const { return base_; }
  const std::vector<const FragmentInfo*>& packages() const { return packages_; }

 private:
  const oci::ImageFilesystem& base_;
  const RewriteRules& rules_;
  std::vector<const FragmentInfo*> packages_;
  std::map<std::string, const FragmentEntry*> entries_;
};

// A regular file / symlink / directory effect entry with the epoch as mtime.
EffectFile effect_file(std::string path, std::string content, std::uint32_t mode, std::int64_t epoch);
EffectFile effect_symlink(std::string path, std::string target, std::int64_t epoch);

// `/var/lib/dpkg/arch` as `dpkg --add-architecture` leaves it (native first,
// then the foreign ones, sorted) when `packages` bring architectures the
// base's file lacks; nullopt when nothing changes.
std::optional<EffectFile> dpkg_arch_effect(const oci::ImageFilesystem& base,
                                           const std::vector<const FragmentInfo*>& packages,
                                           const std::string& native_arch, std::int64_t epoch);

// tzdata's postinst on a first install with debconf's default answers:
// /etc/localtime → /usr/share/zoneinfo/<zone> and /etc/timezone "<zone>\n",
// the zone read as its config script reads it (the base's /etc/localtime
// link, else the first word of its /etc/timezone) when the image has that
// zone's file, else Etc/UTC. Nothing unless tzdata is new in `view`.
Effects tzdata_effects(const OverlayView& view, std::int64_t epoch);

// Scripts' side effects strata does not reproduce, per package (adduser,
// debconf, dpkg-divert, unknown triggers, …). `reproduced`: the tokens
// (a command such as "update-ca-certificates", or a trigger name) the
// effects did reproduce for this package, left out.
std::vector<std::string> unreproduced_script_effects(const FragmentInfo& package,
                                                     const std::set<std::string>& reproduced = {});

}  // namespace strata::layer
