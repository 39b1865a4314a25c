#include "oci/http/redirect_transport.hpp"

#include "oci/http/url.hpp"

namespace strata::oci::http {

bool is_redirect_status(int status) {
  return status == 301 || status == 302 || status == 303 || status == 307 || status == 308;
}

Result<Response> RedirectTransport::send(Request& request) {
  STRATA_TRY(auto first, inner_->send(request));
  if (!request.follow_redirects || !is_redirect_status(first.status)) {
    if (first.effective_url.empty()) first.effective_url = request.url;
    return first;
  }
  const std::string origin_url = request.url;
  Request hop = request;  // the caller's request stays untouched
  Response response = std::move(first);
  bool credentials_dropped = false;
  for (int hops = 0; is_redirect_status(response.status); ++hops) {
    auto location = response.headers.get("Location");
    if (!location) return response;  // nothing to follow; the caller reports the status
    if (hops >= max_redirects_) {
      return fail(ErrorCode::kUnavailable, request.method + " " + without_query(origin_url) +
                                               ": more than " + std::to_string(max_redirects_) +
                                               " redirects");
    }
    STRATA_TRY(auto next, resolve_url(hop.url, *location));
    if (!same_origin(hop.url, next) || credentials_dropped) {
      hop.headers.remove("Authorization");
      credentials_dropped = true;
    }
    hop.url = next;
    if (response.status == 303 && hop.method != "HEAD") {
      hop.method = "GET";
      hop.body = nullptr;
      hop.headers.remove("Content-Type");
      hop.headers.remove("Content-Length");
    } else if (hop.body != nullptr) {
      if (!hop.body->rewind) return response;
      STRATA_TRY_VOID(hop.body->rewind());
    }
    STRATA_TRY(response, inner_->send(hop));
  }
  if (response.effective_url.empty()) response.effective_url = hop.url;
  return response;
}

}  // namespace strata::oci::http
