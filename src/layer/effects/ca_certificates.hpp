// update-ca-certificates without running it: what ca-certificates' postinst
// leaves behind on a first install with debconf's non-interactive answers
// (trust_new_crts "yes"), and what a later run (another package's postinst
// or the update-ca-certificates trigger) leaves, as pure functions.
//
//   - /etc/ca-certificates.conf on a first install: the postinst's header,
//     then every certificate the config script offers (the *.crt files under
//     /usr/share/ca-certificates, relative, united with its literal
//     CERTS_LIST), each enabled, sorted bytewise and once (the postinst's
//     `sort | uniq -c` of the enabled and available lists: a name in both
//     is written plain);
//   - update-ca-certificates: a fresh run when the conf is missing or empty
//     (symlinks into the certificate directories cleared, then dangling
//     ones); `!name` lines remove /etc/ssl/certs/<basename>.pem when it is a
//     symlink; every other line names a certificate added (a missing file is
//     skipped), then the *.crt files under /usr/local/share/ca-certificates
//     in sorted path order. Adding links /etc/ssl/certs/<basename .crt, ' '
//     and ',' → '_', '(' and ')' → '='>.pem to the file and appends the file
//     to the bundle (a final newline added when missing); the bundle
//     /etc/ssl/certs/ca-certificates.crt (0644) is written when anything was
//     added at all;
//   - when any link was added or removed: dangling symlinks in /etc/ssl/certs
//     removed, then `openssl rehash`: names in strcmp order; a symlink named
//     <8 hex>.<n> or <8 hex>.r<n> is an existing hash link; any other file
//     ending in .pem, .crt, .cer or .crl (any case) that holds exactly one
//     certificate or CRL (PEM_X509_INFO_read_bio) gets <subject hash>.<n>
//     (X509_NAME_hash_ex, the CRL's issuer for <hash>.r<n>), n the first
//     free number of its hash, a second copy of the same certificate (SHA-1
//     fingerprint) skipped; existing links numbered below the hash's new
//     count are kept.
// Hooks (/etc/ca-certificates/update.d) are not run: effects_for_overlay
// lists them as not reproduced. A certificate that does not parse is left
// out of the hash links with a note naming it (as rehash skips it) but kept
// in the bundle (update-ca-certificates concatenates files); a file larger
// than kMaxCertificateBytes is not read and is reported.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layer/effects/effects.hpp"

namespace strata::layer {

inline constexpr std::size_t kMaxCertificateBytes = kMaxCapturedCertificateBytes;

// The header the postinst writes above the list on a first install.
std::string_view ca_conf_header();

// The CERTS_LIST="a, b, …" assignment of ca-certificates' config script,
// split; empty when the script has none or it is not a literal.
std::vector<std::string> config_certs_list(std::string_view config_script);

// /etc/ca-certificates.conf as the postinst writes it on a first install,
// every offered certificate enabled. `offered`: names relative to
// /usr/share/ca-certificates, in any order, repeats allowed.
std::string new_ca_certificates_conf(std::vector<std::string> offered);

// /etc/ca-certificates.conf as the postinst rewrites an existing one with
// debconf's non-interactive answers (trust_new_crts "yes"): the config
// script offers `offered` (as above), enables each but those the conf
// deselects (`!name`); each line of the old conf is kept (comments), made
// `name` when enabled, `!name` when offered or already `!`, `name` when the
// file exists (`exists`, relative to either certificate directory), else
// `!name`; then each enabled name no line starts with is appended, then
// `!name` for each offered one neither enabled nor deselected. Lines are read
// as `read` does (blanks around them dropped). nullopt when nothing changes
// (the postinst then keeps the file and writes no .dpkg-old).
std::optional<std::string> merged_ca_certificates_conf(std::string_view old_conf, std::vector<std::string> offered,
                                                       const std::function<bool(const std::string&)>& exists);

// One entry of /etc/ssl/certs before the run.
struct CertsDirEntry {
  bool symlink = false;
  std::string target;  // symlinks: verbatim target
};

struct CaUpdateInput {
  std::string conf;  // /etc/ca-certificates.conf ("" when missing)
  // Certificate files by absolute path (/usr/share/ca-certificates/…,
  // /usr/local/share/ca-certificates/…): content, or nullopt when the file
  // exists but was not read (too large).
  std::map<std::string, std::optional<std::string>> files;
  std::map<std::string, CertsDirEntry> certs_dir;  // /etc/ssl/certs by name
};

struct CaUpdateResult {
  std::map<std::string, CertsDirEntry> certs_dir;  // /etc/ssl/certs by name, after
  std::optional<std::string> bundle;               // ca-certificates.crt when written
  std::vector<std::string> notes;                  // certificates skipped, and why
  std::vector<std::string> unreadable;             // files the run needed but could not read
};

// One run of update-ca-certificates (with its rehash), on the state given.
CaUpdateResult update_ca_certificates(const CaUpdateInput& in);

// The hash link name rehash gives one certificate or CRL file's content
// ("<hash>." or "<hash>.r" without the number, and its SHA-1 fingerprint), or
// nullopt with `why` when the file does not hold exactly one.
struct RehashKey {
  std::string prefix;       // "5ad8a5d6." or "5ad8a5d6.r"
  std::string fingerprint;  // SHA-1 of the DER, raw bytes
};
std::optional<RehashKey> rehash_key(std::string_view pem, std::string& why);

// What update-ca-certificates leaves in the overlay: nothing unless the
// ca-certificates package is new in it, or installed and some new package's
// postinst or triggers run update-ca-certificates. `handled` gets the
// packages whose update-ca-certificates calls are reproduced.
Result<Effects> ca_certificates_effects(const OverlayView& view, std::int64_t epoch,
                                        std::vector<std::string>& handled);

// Paths whose content a fragment or the base must carry for the effect:
// /etc/ca-certificates.conf and *.crt under the two certificate directories.
bool ca_certificates_capture(std::string_view path);

}  // namespace strata::layer
