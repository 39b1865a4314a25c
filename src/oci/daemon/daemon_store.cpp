#include "oci/daemon/daemon_store.hpp"

namespace strata::oci::daemon {

Result<std::unique_ptr<Store>> open_daemon_store(Daemon daemon, const DockerReference& ref, Access access,
                                                 const OpenOptions& options) {
  (void)ref;
  (void)access;
  (void)options;
  return fail(ErrorCode::kUnsupported,
              std::string(daemon == Daemon::kDocker ? "docker-daemon:" : "podman:") + " is not built yet");
}

}  // namespace strata::oci::daemon
