// Fragments: one package's data.tar converted into a normalised piece of a
// layer (docs/format/overlay.md), and the cache that makes a new combination
// of known packages cost only concatenation and hashing.
//
// Conversion (convert_deb): entries placed by the RewriteRules (diversions,
// the base's directory symlinks, dpkg path filters, statoverrides),
// directories the base already has left out, numeric owners, mtimes clamped
// to the epoch, sorted in tar_path_less order, hardlinks re-rooted so the
// first one in output order carries the content, no end-of-archive blocks.
// The tar holds no directories: they are recorded in the info, and the
// overlay builder writes every directory of a layer once, ahead of the
// fragments (layer/overlay/layer_plan.hpp), so that no path repeats.
// The uncompressed tar and its compressed form (independent gzip members /
// zstd frames, the layer.md member boundary rule) are both kept, with their
// sizes and CRC-32s: the first feeds the diff_id, the second the blob.
//
// Cache: $STRATA_HOME/fragments/<sha256 of (deb sha256, rules hash,
// compression, recipe)>/{info.bin,data.tar,data.tar.<ext>}, written in a
// temporary directory renamed into place (readers see all or nothing;
// racing builders write the same bytes). Thread-safe: convert different
// packages from different threads.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "oci/compress.hpp"
#include "layer/deb/rewrite_rules.hpp"
#include "oci/tar_entry.hpp"

namespace strata::layer {

// Bump when conversion output changes for the same inputs.
inline constexpr int kFragmentRecipe = 8;  // 8: every entry's header, copyright summaries and os-release kept (the SBOM)

struct FragmentEntry {
  std::string path;  // placed path in the image
  oci::TarEntryType type = oci::TarEntryType::kRegular;
  std::string link_target;  // symlinks: verbatim target; hardlinks: placed path
  std::string md5;          // regular files and hardlinks, when the package says
  // The rest of its header as the fragment's tar holds it (xattrs aside),
  // so the image's filesystem is known without reading the tar again.
  std::uint32_t mode = 0;
  std::uint64_t uid = 0, gid = 0, size = 0;
  std::int64_t mtime = 0;
  std::uint32_t dev_major = 0, dev_minor = 0;
};

struct FragmentLibrary {
  std::string path;  // placed path
  std::string soname;
  std::int32_t flags = 0;
};

struct FragmentInfo {
  std::string package, version, architecture, multi_arch;
  std::string control;                               // the control file as shipped
  std::map<std::string, std::string> control_files;  // conffiles, md5sums, postinst, …
  std::string data_member;
  std::vector<std::string> list;     // dpkg's info/<pkg>.list lines, data.tar order ("/.", "/usr", …)
  std::string md5sums;               // the .deb's md5sums, or generated
  std::map<std::string, std::string> conffile_md5;  // "/etc/x" → md5 of the shipped content
  std::vector<FragmentEntry> entries;  // output entries, output order (directories too)
  std::vector<oci::TarEntry> directories;  // the directory entries, not in the tar: the layer's directories piece
  std::vector<FragmentLibrary> libraries;
  std::map<std::string, std::string> captured;  // ld.so.conf(.d), certificate files, adduser.conf, os-release by placed path
  std::map<std::string, std::string> summaries;  // copyright files (is_copyright_path): copyright_summary, by placed path
  std::vector<std::string> notes;               // filtered paths and other remarks
  std::uint64_t tar_size = 0;
  std::uint32_t tar_crc32 = 0;  // checks data.tar when taken from the cache (layer/crc32.hpp)
  std::uint64_t compressed_size = 0;
  std::uint32_t compressed_crc32 = 0;  // and data.tar.<ext>
};

struct Fragment {
  FragmentInfo info;
  std::filesystem::path tar;         // uncompressed fragment
  std::filesystem::path compressed;  // its compressed form
  bool converted = false;            // false: taken from the cache
};

class FragmentCache {
 public:
  // `home` is $STRATA_HOME; fragments live in home/fragments.
  explicit FragmentCache(std::filesystem::path home) : dir_(std::move(home) / "fragments") {}

  // The cached fragment for this .deb under these rules, converting it first
  // when absent or damaged. `what` names the package in errors;
  // `compress_jobs` chunks are compressed at once (same bytes for any value).
  Result<Fragment> get(const std::filesystem::path& deb, const std::string& deb_sha256, const RewriteRules& rules,
                       oci::Compression compression, const std::string& what, unsigned compress_jobs = 1) const;

  std::string key(const std::string& deb_sha256, const RewriteRules& rules, oci::Compression compression) const;

 private:
  Result<Fragment> lookup(const std::filesystem::path& dir, oci::Compression compression) const;
  std::filesystem::path dir_;
};

// The conversion itself, writing data.tar and its compressed form (named by
// packed_name) into `out_dir`.
Result<FragmentInfo> convert_deb(const std::filesystem::path& deb, const RewriteRules& rules,
                                 oci::Compression compression, const std::filesystem::path& out_dir,
                                 const std::string& what, unsigned compress_jobs = 1);

// Files under /usr/share/ca-certificates and /usr/local/share/ca-certificates:
// update-ca-certificates reads them (layer/effects/ca_certificates.hpp), so a
// fragment keeps those up to kMaxCapturedCertificateBytes in `captured`.
bool is_certificate_path(std::string_view placed);
// Init scripts and systemd units (etc/init.d/*, [usr/]lib/systemd/system/*):
// kept for update-rc.d and deb-systemd-helper (layer/effects/services.hpp).
bool is_service_definition_path(std::string_view placed);
inline constexpr std::size_t kMaxCapturedCertificateBytes = std::size_t{1} << 20;
// A file the package's postinst may install as a configuration file with
// ucf (`ucf /usr/share/php8.2-intl/intl/${inifile} /etc/php/…`): the postinst
// runs ucf and names the file or its directory, or it is one of Debian's PHP
// php.ini templates (another package's postinst installs it). Kept (up to
// kMaxCapturedCertificateBytes) for layer/effects/ucf.hpp.
bool is_ucf_source(std::string_view placed, std::string_view postinst);
// The md5 of `data` in hex, as dpkg and ucf record files.
std::string md5_hex(std::string_view data);

std::string_view compression_extension(oci::Compression c);
// The file of a fragment's compressed form: data.tar.gz, data.tar.zst, or for
// an uncompressed layer data.tar itself (the two forms are the same bytes).
std::string packed_name(oci::Compression c);

}  // namespace strata::layer
