// One version of one binary package, as read from a Packages index or a dpkg
// status file: only the fields resolution, locking and fetching need. Plain
// value type; parsing is a pure function.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "layer/debian/deb822.hpp"
#include "layer/debian/relation.hpp"
#include "util/error.hpp"

namespace strata::layer {

enum class MultiArch { kNo, kSame, kForeign, kAllowed };
std::string_view multi_arch_name(MultiArch m);

struct Package {
  std::string name;
  std::string version;
  std::string architecture;  // "all" or an architecture
  MultiArch multi_arch = MultiArch::kNo;
  bool essential = false;
  bool important = false;  // "Important: yes" (apt treats it like Essential for ordering)
  int priority = 5;        // 1 required, 2 important, 3 standard, 4 optional, 5 extra/unknown
  std::vector<OrGroup> pre_depends;
  std::vector<OrGroup> depends;
  std::vector<Relation> conflicts;
  std::vector<Relation> breaks;
  std::vector<Relation> provides;  // op is kAny or kEq
  // The source package it was built from ("Source: name (version)"); both
  // default to the binary's own name and version, as dpkg and apt do.
  std::string source;
  std::string source_version;
  // Archive location (Packages only).
  std::string filename;
  std::uint64_t size = 0;
  std::string sha256;

  std::string id() const { return name + ":" + architecture + "=" + version; }
};

enum class StanzaKind {
  kPackagesIndex,  // requires Filename, Size, SHA256
  kStatus,         // dpkg status / status.d: no archive fields
};

// Builds a Package from a stanza. `origin` names the file for errors, which
// carry the stanza's line and package name.
Result<Package> package_from_stanza(const Deb822Stanza& stanza, StanzaKind kind, std::string_view origin);

}  // namespace strata::layer
