// The OpenPGP keys strata trusts for toolchain release signatures, compiled
// in (keys/README.md): Node.js's releasers, verified against the signed
// SHASUMS256.txt.asc of each release, and the Rust release key, verified
// against the .asc of each standalone installer. A user's extra keyring for
// a tool (--toolchain-keyring) is added to these, never instead of them.
#pragma once

#include <filesystem>
#include <string_view>
#include <vector>

#include "layer/apt/signature.hpp"

namespace strata::layer::toolchain {

extern const char* const kNodeReleaseKeys;  // armored
extern const char* const kRustReleaseKeys;  // armored

// The primary-key fingerprints a signature of `tool` must come from
// (empty for a tool strata has no keys for).
const std::vector<std::string>& release_fingerprints(std::string_view tool);

// The keys a signature of `tool` is checked with: the compiled-in ones
// (restricted to their fingerprints) plus `extra` keyring files. With extra
// keyrings the fingerprint restriction is lifted: the user trusts those keys.
TrustedKeys release_keys(std::string_view tool, const std::vector<std::filesystem::path>& extra);

}  // namespace strata::layer::toolchain
