// docker-daemon:NAME[:TAG] and podman:NAME[:TAG]: images in the Docker
// Engine's or podman's store, through their HTTP APIs on a unix socket.
#pragma once

#include <memory>
#include <string>

#include "oci/open_store.hpp"
#include "oci/reference.hpp"
#include "oci/store.hpp"

namespace strata::oci::daemon {

enum class Daemon { kDocker, kPodman };

Result<std::unique_ptr<Store>> open_daemon_store(Daemon daemon, const DockerReference& ref, Access access,
                                                 const OpenOptions& options);

}  // namespace strata::oci::daemon
