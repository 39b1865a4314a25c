#include "oci/http/registry_transport.hpp"

#include "oci/http/redirect_transport.hpp"

namespace strata::oci::http {

std::shared_ptr<Transport> decorate_registry_transport(std::shared_ptr<Transport> base,
                                                       const RetryPolicy& retry, Clock& clock,
                                                       int max_redirects) {
  auto retrying = std::make_shared<RetryTransport>(std::move(base), retry, clock);
  return std::make_shared<RedirectTransport>(std::move(retrying), max_redirects);
}

std::shared_ptr<Transport> make_registry_transport(const RegistryTransportOptions& options) {
  Clock& clock = options.clock != nullptr ? *options.clock : system_clock();
  return decorate_registry_transport(std::make_shared<CurlTransport>(options.curl), options.retry, clock,
                                     options.max_redirects);
}

}  // namespace strata::oci::http
