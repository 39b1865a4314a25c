// Authenticator: the authorization state for one registry host.
//
// Learns the registry's challenge (from the /v2/ ping or any 401), then adds
// `Authorization` to requests: Basic with the keychain credential, or a Bearer
// token from the challenge's realm (GET realm?service=&scope=… with Basic
// credentials when known; POST grant_type=refresh_token for identity tokens).
// Tokens are cached per scope set until they expire (`expires_in`, default
// and floor 60 s, counted from `issued_at` when given) on the injected Clock;
// a cached token asked for a superset of the scopes a request needs serves it
// too. One Authenticator serves every repository of a host.
// Credentials and tokens are never put in errors.
//
// Thread-safety: every method may be called concurrently.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "oci/http/transport.hpp"
#include "oci/registry/challenge.hpp"
#include "oci/registry/keychain.hpp"
#include "util/clock.hpp"

namespace strata::oci::registry {

class Authenticator {
 public:
  Authenticator(std::string registry, std::optional<Credential> credential,
                std::shared_ptr<http::Transport> transport, Clock& clock);

  // Records the challenge a 401 (or the ping) carried.
  void learn(const Challenge& challenge);
  bool knows_challenge() const;

  // Sets Authorization for `scopes` when a challenge is known (fetching a
  // token if none is cached). No challenge: leaves the request alone.
  Result<void> authorize(http::Request& request, const std::vector<std::string>& scopes);

  // Handles a 401 answer to a request made with `scopes`. Returns true when
  // one retry with new authorization can succeed; adds the challenge's scopes
  // to `scopes` (insufficient_scope) and forgets rejected tokens.
  bool on_unauthorized(const http::Response& response, std::vector<std::string>& scopes, bool had_authorization);

  const std::string& registry() const { return registry_; }
  bool has_credential() const { return credential_.has_value(); }

  // Tokens fetched so far (tests check caching).
  int token_fetches() const;

 private:
  struct Token {
    std::string value;
    std::int64_t expires_at = 0;
    std::vector<std::string> scopes;  // what it was requested for
  };
  Result<Token> fetch_token(const Challenge& challenge, const std::vector<std::string>& scopes);
  static std::string cache_key(const std::vector<std::string>& scopes);
  // An unexpired cached token requested for every scope in `scopes` or more
  // (a pull,push token serves pulls; a mount token serves both repos).
  const Token* find_covering(const std::vector<std::string>& scopes) const;

  std::string registry_;
  std::optional<Credential> credential_;
  std::shared_ptr<http::Transport> transport_;
  Clock& clock_;
  mutable std::mutex mutex_;
  std::optional<Challenge> challenge_;
  std::map<std::string, Token> tokens_;
  int token_fetches_ = 0;
};

// Base64 (standard alphabet, padded), for Basic credentials.
std::string base64_encode(std::string_view in);

// Seconds since the epoch for an RFC 3339 timestamp; nullopt if unparseable.
std::optional<std::int64_t> parse_rfc3339(std::string_view text);

}  // namespace strata::oci::registry
