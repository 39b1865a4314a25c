// Platforms ("linux/arm64/v8") as in OCI descriptors and image configs, with
// the matching rules container runtimes use to pick an index entry.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::oci {

struct Platform {
  std::string os;
  std::string architecture;
  std::string variant;     // empty when not set
  std::string os_version;  // empty when not set

  // "os/arch[/variant]".
  std::string str() const;
  bool operator==(const Platform&) const = default;
};

// Parses "os/arch[/variant]"; normalises aliases (x86_64 → amd64, aarch64 →
// arm64, armhf → arm/v7) as Docker does.
Result<Platform> parse_platform(std::string_view text);
// Parses a comma-separated list "linux/amd64,linux/arm64".
Result<std::vector<Platform>> parse_platforms(std::string_view text);
// The platform of this machine.
Platform host_platform();

// True when `candidate` (an index entry or image config) satisfies `want`.
// An empty variant in `want` matches any variant; arm64 treats an empty
// variant and "v8" as equal.
bool platform_matches(const Platform& want, const Platform& candidate);

}  // namespace strata::oci
