// A minimal libcurl http::Transport for the layer integration tests only
// (GET with request headers, body streamed into the sink). Production code
// uses src/oci/http's CurlTransport once it lands.
#pragma once

#include "oci/http/transport.hpp"

namespace strata::testing {

class TestCurlTransport final : public oci::http::Transport {
 public:
  Result<oci::http::Response> send(oci::http::Request& request) override;
};

}  // namespace strata::testing
