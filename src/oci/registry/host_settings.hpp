// HostSettings: what one registry host gets besides the command's defaults
// (a mirror config's `registries:` section): TLS verification, its own
// credentials file, retries and timeouts. Unset fields keep the defaults.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace strata::oci::registry {

struct HostSettings {
  // false: plain HTTP allowed and TLS not verified (as --insecure-registry).
  std::optional<bool> tls_verify;
  // The only credentials file read for this host (as --authfile).
  std::optional<std::filesystem::path> authfile;
  // A certs.d-style directory searched first for this host's roots.
  std::optional<std::filesystem::path> cert_dir;
  // Tries of a request that fails transiently, the first included.
  std::optional<int> retries;
  // Seconds to connect, and seconds without progress before a transfer stalls.
  std::optional<std::chrono::seconds> timeout;
};

// By registry host as references name it ("reg.example:5000", "docker.io").
using HostSettingsMap = std::map<std::string, HostSettings>;

}  // namespace strata::oci::registry
