#include "oci/http/offline_transport.hpp"

namespace strata::oci::http {

Result<Response> OfflineTransport::send(Request& request) {
  return fail(ErrorCode::kUnreachable, std::string(kOfflineHint) + ": not fetching " + request.url);
}

}  // namespace strata::oci::http
