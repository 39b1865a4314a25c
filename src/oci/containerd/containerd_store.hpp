// containerd:NAME[:TAG|@DIGEST]: images in containerd's own store, through its
// gRPC API (the content, images and leases services), so a runtime runs what
// strata writes without an archive and a second tool in between.
//
// Writing: each blob is asked for with Info first and written only when
// missing (Write with the expected digest and size), under a lease that
// expires on its own, so containerd's garbage collector can take neither
// fresh content before the image record exists nor, after a crash, anything
// at all for longer than the lease lives. Parents carry containerd's
// gc.ref.content labels for their children; the image record is created (or
// moved) last, labelled for CRI in the k8s.io namespace; the lease ends.
// Reading streams content from the store.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "oci/open_store.hpp"
#include "oci/reference.hpp"
#include "oci/store.hpp"

namespace strata::oci::containerd {

struct ContainerdOptions {
  // unix socket path ("/run/containerd/containerd.sock") or "unix://…".
  std::string address;
  std::string ns;  // namespace: "default", "k8s.io" (Kubernetes' CRI), …
  // How long a write's lease keeps its content if strata dies before it
  // ends the lease itself.
  std::chrono::seconds lease_expiry{3600};
};

// The options for `options` (--containerd-address/--containerd-namespace),
// else CONTAINERD_ADDRESS / CONTAINERD_NAMESPACE, else containerd's defaults;
// STRATA_CONTAINERD_LEASE_SECONDS. A namespace containerd would refuse, or a
// lease time that is not 1 s to 31 days, is an error naming it.
Result<ContainerdOptions> containerd_options(const OpenOptions& options);

Result<std::unique_ptr<Store>> open_containerd_store(const DockerReference& ref, Access access,
                                                     const ContainerdOptions& options);

}  // namespace strata::oci::containerd
