// OfflineTransport: the transport of `--offline` (STRATA_OFFLINE=1). Every
// request fails at once, naming the URL it would have fetched, so what an
// offline command still lacks is named instead of waited for.
#pragma once

#include "oci/http/transport.hpp"

namespace strata::oci::http {

inline constexpr std::string_view kOfflineHint = "--offline (or STRATA_OFFLINE=1)";

class OfflineTransport final : public Transport {
 public:
  Result<Response> send(Request& request) override;
};

}  // namespace strata::oci::http
