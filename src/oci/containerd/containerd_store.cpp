#include "oci/containerd/containerd_store.hpp"

#include <grpcpp/grpcpp.h>

#include <cstdlib>

#include <containerd_api/content.grpc.pb.h>
#include <containerd_api/images.grpc.pb.h>
#include <containerd_api/leases.grpc.pb.h>

namespace strata::oci::containerd {

ContainerdOptions containerd_options(const OpenOptions& options) {
  ContainerdOptions o;
  auto env = [](const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return std::string(v && *v ? v : fallback);
  };
  o.address = !options.containerd_address.empty() ? options.containerd_address
                                                   : env("CONTAINERD_ADDRESS", "/run/containerd/containerd.sock");
  o.ns = !options.containerd_namespace.empty() ? options.containerd_namespace : env("CONTAINERD_NAMESPACE", "default");
  return o;
}

Result<std::unique_ptr<Store>> open_containerd_store(const DockerReference& ref, Access access,
                                                     const ContainerdOptions& options) {
  (void)ref;
  (void)access;
  (void)options;
  return fail(ErrorCode::kUnsupported, "containerd: is not built yet");
}

}  // namespace strata::oci::containerd
