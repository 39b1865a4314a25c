// What an image offers, read without running it: for one platform, its
// config (Env, PATH, labels), its manifest annotations (org.opencontainers.
// image.*, strata's overlay annotations), the Debian packages its dpkg
// database counts as installed (status and status.d/), the commands on its
// PATH, and the runtime versions it carries — each with where it was read
// (dpkg, ENV, a version file), since official images advertise a runtime
// unpacked into /usr/local only in ENV and headers.
//
// The filesystem is the image's layers applied in order (oci/image_fs:
// whiteouts, opaque directories, symlinks followed inside the root). Facts
// depend only on the platform's manifest, so a FactsCache (facts_cache.hpp)
// keyed by its digest answers a second read with one manifest fetch.
// Thread-safe: no shared state.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oci/platform.hpp"
#include "oci/store.hpp"
#include "util/error.hpp"

namespace strata::contract::image {

// Bumped when the facts a reader extracts change, so older cache entries
// are read again rather than trusted.
// 2: version files are parsed without std::regex and bounded, and `notes`
// says which gave no version.
// 3: runtimes of strata's toolchain layer (/opt/strata/toolchains) are read.
inline constexpr int kFactsFormat = 4;

// One runtime version and where it was read.
struct RuntimeFact {
  std::string tool;     // node, python, go, rust, java, …
  std::string version;  // upstream version only ("18.19.0", not "18.19.0+dfsg-6")
  std::string kind;     // dpkg | env | file
  std::string source;   // "dpkg nodejs 18.19.0+dfsg-6", "ENV NODE_VERSION=22.11.0",
                        // "file /usr/local/include/node/node_version.h"
  friend bool operator==(const RuntimeFact&, const RuntimeFact&) = default;
};

struct ImageFacts {
  int format = kFactsFormat;
  std::string manifest_digest;  // the platform's image manifest
  oci::Platform platform;       // from the config
  std::vector<std::string> env;               // config Env, verbatim
  std::vector<std::string> path;              // PATH entries (Docker's default when Env has none)
  std::map<std::string, std::string> labels;  // config Labels
  std::map<std::string, std::string> annotations;  // manifest annotations
  std::map<std::string, std::string> packages;     // installed Debian packages: name → version
  // Virtual packages the installed ones provide: name → its installed
  // providers ("git-core" → {"git"}), as dpkg counts a dependency satisfied.
  std::map<std::string, std::vector<std::string>> provides;
  std::map<std::string, std::string> commands;     // executable name → first path on PATH ("/usr/bin/cc")
  std::vector<RuntimeFact> runtimes;               // sorted by tool, then kind (dpkg, env, file)
  // What the reader found but could not use, one line each, naming the
  // file: a version file too large, or malformed ("/opt/java/openjdk/release:
  // JAVA_VERSION=\" is not terminated on its line; no version read from it").
  std::vector<std::string> notes;

  const std::string* package_version(std::string_view name) const;
  // The installed package that satisfies a requirement of `name`: itself,
  // else the first installed package that provides it; nullptr when none.
  const std::string* installed_satisfier(std::string_view name) const;
  const std::string* command(std::string_view name) const;
  std::vector<const RuntimeFact*> runtime(std::string_view tool) const;
  friend bool operator==(const ImageFacts&, const ImageFacts&) = default;
};

class FactsCache;

// The facts of `ref` in `store` for `platform` (an index is narrowed to
// it). With a cache, an entry for the manifest digest is used when intact,
// and a fresh read is recorded in it.
Result<ImageFacts> read_image_facts(oci::Store& store, std::string_view ref, const oci::Platform& platform,
                                    const FactsCache* cache = nullptr);

}  // namespace strata::contract::image
