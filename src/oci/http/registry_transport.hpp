// The transport stack registry clients use, assembled in one place and in a
// fixed order: RedirectTransport → RetryTransport → CurlTransport. Redirects
// sit outside retries so each hop is retried on its own and the
// Authorization-dropping rule sees every hop.
#pragma once

#include <memory>

#include "oci/http/curl_transport.hpp"
#include "oci/http/retry_transport.hpp"
#include "util/clock.hpp"

namespace strata::oci::http {

struct RegistryTransportOptions {
  CurlOptions curl;
  RetryPolicy retry;
  int max_redirects = 10;
  Clock* clock = nullptr;  // nullptr: system_clock(); must outlive the transport
};

std::shared_ptr<Transport> make_registry_transport(const RegistryTransportOptions& options);

// The same decorators over any transport (tests put them over a fake).
std::shared_ptr<Transport> decorate_registry_transport(std::shared_ptr<Transport> base,
                                                       const RetryPolicy& retry, Clock& clock,
                                                       int max_redirects = 10);

}  // namespace strata::oci::http
