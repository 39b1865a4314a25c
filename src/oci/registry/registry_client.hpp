// RegistryClient: authenticated HTTP to one registry host.
//
// On first use it pings `/v2/` to learn the scheme (https; plain http only
// for insecure hosts whose TLS endpoint does not answer) and the auth
// challenge. send() adds Authorization for the scopes an operation needs
// (only on requests to the registry's own origin), follows redirects, and on
// a 401 learns the new challenge (adding an insufficient_scope's scope) and
// retries once when the body can be replayed.
//
// Thread-safety: send() may be called concurrently.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "oci/http/transport.hpp"
#include "oci/registry/authenticator.hpp"

namespace strata::oci::registry {

class RegistryClient {
 public:
  // `api_authority` is where requests go ("registry-1.docker.io",
  // "127.0.0.1:5000"); `insecure` allows the plain-HTTP fallback.
  RegistryClient(std::string api_authority, bool insecure, std::shared_ptr<http::Transport> transport,
                 std::shared_ptr<Authenticator> auth);

  // "https://host[:port]" once the ping has decided the scheme.
  Result<std::string> origin();

  // Sends with authorization for `scopes` ("repository:x/y:pull,push").
  Result<http::Response> send(http::Request& request, std::vector<std::string> scopes);

  const std::string& authority() const { return authority_; }
  Authenticator& authenticator() { return *auth_; }

 private:
  Result<void> ping();

  std::string authority_;
  bool insecure_;
  std::shared_ptr<http::Transport> transport_;
  std::shared_ptr<Authenticator> auth_;
  std::mutex mutex_;
  std::string origin_;  // empty until pinged
};

}  // namespace strata::oci::registry
