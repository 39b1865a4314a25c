// RegistryClient: authenticated HTTP to one registry host.
//
// There is no up-front `/v2/` ping: requests go straight to the registry and
// the auth challenge is learned from the first 401 (then the request is
// repeated with authorization), so an anonymous pull costs exactly its own
// requests. The scheme is https, except for insecure hosts, whose first
// exchange decides between https and plain http (the https attempt is not
// retried: a TLS handshake against a plain-HTTP port fails the same way
// every time). Only a first request whose body cannot be replayed pings
// `/v2/` beforehand, as it could not be repeated after a 401.
//
// send() adds Authorization for the scopes an operation needs (only on
// requests to the registry's own origin), follows redirects, and on a 401
// learns the new challenge (adding an insufficient_scope's scope) and
// retries when the body can be replayed: once, plus once more when the 401
// only taught the challenge.
//
// One client serves every repository of its host (RegistryClientCache), so
// connections, the challenge and tokens are shared across stores.
//
// Thread-safety: send() may be called concurrently.
#pragma once

#include <atomic>
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

  // "https://host[:port]", or "http://…" once an insecure host turned out to
  // speak plain HTTP. No network I/O: before an insecure host's first
  // exchange this is the https origin, and send() corrects URLs built on it.
  Result<std::string> origin();

  // Sends with authorization for `scopes` ("repository:x/y:pull,push").
  Result<http::Response> send(http::Request& request, std::vector<std::string> scopes);

  const std::string& authority() const { return authority_; }
  Authenticator& authenticator() { return *auth_; }
  // /v2/ pings sent so far (tests check they are avoided).
  int pings() const { return pings_.load(); }

 private:
  Result<void> ping();
  // `first_attempts` caps the transport's tries for the first exchange (0: its policy).
  Result<http::Response> send_authorized(http::Request& request, std::vector<std::string>& scopes,
                                         const std::string& base, int first_attempts);
  // The first exchange with an insecure host: https, else plain http.
  Result<http::Response> send_probing(http::Request& request, std::vector<std::string>& scopes);
  Error unreachable(const Error& error) const;

  std::string authority_;
  bool insecure_;
  std::shared_ptr<http::Transport> transport_;
  std::shared_ptr<Authenticator> auth_;
  std::mutex mutex_;        // guards origin_
  std::mutex probe_mutex_;  // one scheme probe at a time
  std::string origin_;      // empty until decided
  std::atomic<int> pings_{0};
  std::atomic<bool> answered_{false};  // some exchange got an HTTP answer
};

}  // namespace strata::oci::registry
