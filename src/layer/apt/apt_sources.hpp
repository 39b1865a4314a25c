// apt source definitions: one-line sources.list entries ("deb [opts] URI
// SUITE COMPONENT…") and deb822 *.sources stanzas, read into one model.
// Only "deb" entries are kept (deb-src is not needed to build images).
// Pure parsing functions plus a loader for a directory such as /etc/apt.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "layer/apt/signature.hpp"
#include "util/error.hpp"

namespace strata::layer {

enum class ByHash { kAuto, kYes, kNo, kForce };

struct AptSource {
  std::string uri;  // without a trailing '/'
  std::string suite;
  std::vector<std::string> components;
  std::vector<std::string> architectures;  // empty: the requested platform's
  std::vector<std::string> signed_by_paths;
  std::vector<std::string> signed_by_fingerprints;
  std::string signed_by_key;  // inline armored key (deb822 only)
  ByHash by_hash = ByHash::kAuto;
  bool check_valid_until = true;
  bool trusted = false;  // "Trusted: yes" / [trusted=yes]: no signature check
  std::string where;     // "file:line" of the definition, for messages
};

// A stable name for each key a source trusts: the fingerprints it names,
// else the SHA-256 of the keyring bytes (file or inline), and "trusted=yes";
// sorted. Part of the overlay cache key, and recorded in locks so a build
// from a lock computes the key its resolving build did.
std::vector<std::string> source_key_identities(const AptSource& s);

// One-line format. Comments and blank lines are skipped.
Result<std::vector<AptSource>> parse_one_line_sources(std::string_view text, std::string_view origin);
// deb822 format; a stanza with several Suites yields one AptSource per suite.
Result<std::vector<AptSource>> parse_deb822_sources(std::string_view text, std::string_view origin);
// Reads a file in the format its name says (*.sources: deb822, else one-line).
Result<std::vector<AptSource>> load_sources_file(const std::filesystem::path& path);
// The host's configuration under `apt_dir` (normally /etc/apt): sources.list,
// then sources.list.d/*.list and *.sources in name order, as apt reads them.
Result<std::vector<AptSource>> load_host_sources(const std::filesystem::path& apt_dir = "/etc/apt");

// Keys trusted for a source: Signed-By paths and inline key; with only
// fingerprints (or nothing), the keyrings in `apt_dir`/trusted.gpg.d and
// `apt_dir`/trusted.gpg, restricted to those fingerprints.
Result<TrustedKeys> trusted_keys_for(const AptSource& source, const std::filesystem::path& apt_dir = "/etc/apt");

}  // namespace strata::layer
