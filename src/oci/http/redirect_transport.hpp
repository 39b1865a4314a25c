// RedirectTransport: a Transport decorator that follows HTTP redirects for
// requests with `follow_redirects` set (301, 302, 303, 307, 308; at most
// `max_redirects` hops). Blob GETs are commonly redirected to storage or a
// CDN. Authorization is removed as soon as a hop changes scheme, host or
// port and is never restored, so credentials stay with the registry.
// 303 turns the request into a GET without body; other codes keep the method
// and replay a rewindable body (a non-rewindable one is not replayed: the
// redirect response is returned as is). Response::effective_url names the
// final URL.
//
// Thread-safety: send() may be called concurrently.
#pragma once

#include <memory>

#include "oci/http/transport.hpp"

namespace strata::oci::http {

class RedirectTransport final : public Transport {
 public:
  explicit RedirectTransport(std::shared_ptr<Transport> inner, int max_redirects = 10)
      : inner_(std::move(inner)), max_redirects_(max_redirects) {}
  Result<Response> send(Request& request) override;

 private:
  std::shared_ptr<Transport> inner_;
  int max_redirects_;
};

bool is_redirect_status(int status);

}  // namespace strata::oci::http
