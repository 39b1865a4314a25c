// The Store conformance suite (oci/store_conformance.hpp) over RegistryStore
// on a real distribution registry (docker-registry, plain HTTP, deletes
// enabled), one fresh repository per test.
#include <atomic>

#include "oci/registry/registry_client.hpp"
#include "oci/registry/registry_store.hpp"
#include "oci/store_conformance.hpp"
#include "support/registry_server.hpp"

namespace strata::oci::registry {
namespace {

using strata::testing::RegistryServer;

// One registry for the whole binary, started on first use and stopped by
// PID when the process exits.
const RegistryServer& server() {
  static std::unique_ptr<RegistryServer> s = [] {
    auto started = RegistryServer::start(RegistryServer::Mode::kPlain);
    if (!started) throw std::runtime_error("docker-registry: " + started.error().message());
    return std::move(*started);
  }();
  return *s;
}

std::unique_ptr<Store> fresh_repository(const std::filesystem::path&) {
  static std::atomic<int> n{0};
  RegistryOptions o;
  o.insecure_hosts = {server().host_port()};
  o.use_default_cert_dirs = false;
  o.retry.initial_backoff = std::chrono::milliseconds(50);
  o.retry.max_attempts = 3;
  o.keychain = std::make_shared<const Keychain>(Keychain::anonymous());
  auto store = open_registry_store(DockerReference{server().host_port(), "conformance/r" + std::to_string(n++), {}, {}}, o);
  if (!store) throw std::runtime_error(store.error().message());
  return std::move(*store);
}

INSTANTIATE_TEST_SUITE_P(Registry, StoreConformance,
                         ::testing::Values(NamedFactory{"registry", fresh_repository}), factory_name);

}  // namespace
}  // namespace strata::oci::registry
