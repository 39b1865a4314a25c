// Where a Docker daemon pulls an image from, for the egress of tests and CI
// jobs that start containers: Docker Hub's hosts (its registry, token service
// and blob CDN) for a name without a registry ("postgres:16",
// "docker.io/library/redis"), else the registry the name starts with
// ("mcr.microsoft.com/mssql/server:2022-latest" → mcr.microsoft.com). The
// name is read as Docker reads it (oci::parse_docker_reference).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::contract {

struct ImagePull {
  std::vector<std::string> hosts;  // "host" or "host:port"
  bool docker_hub = false;
  bool registry_named = false;     // the name itself says where ("ghcr.io/…", "docker.io/…")
};

// nullopt for what names nothing pullable: a name built from a variable
// ("${IMAGE}"), "scratch", a name Docker would refuse, or a registry that is
// no network host a policy could name (localhost, an IP address, a name
// outside the public DNS).
std::optional<ImagePull> image_pull(std::string_view ref);

}  // namespace strata::contract
