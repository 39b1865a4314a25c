#include "oci/registry/registry_client.hpp"

#include "oci/http/url.hpp"
#include "oci/registry/registry_errors.hpp"

namespace strata::oci::registry {

namespace {

bool replayable(const http::Request& request) {
  return request.body == nullptr || static_cast<bool>(request.body->rewind);
}

// Moves a URL built on `from` ("https://host") to `to` ("http://host").
void rebase(std::string& url, const std::string& from, const std::string& to) {
  if (from != to && url.starts_with(from) && (url.size() == from.size() || url[from.size()] == '/'))
    url = to + url.substr(from.size());
}

}  // namespace

RegistryClient::RegistryClient(std::string api_authority, bool insecure, std::shared_ptr<http::Transport> transport,
                               std::shared_ptr<Authenticator> auth)
    : authority_(std::move(api_authority)),
      insecure_(insecure),
      transport_(std::move(transport)),
      auth_(std::move(auth)) {}

Result<std::string> RegistryClient::origin() {
  std::lock_guard lock(mutex_);
  if (!origin_.empty()) return origin_;
  if (!insecure_) origin_ = "https://" + authority_;  // nothing to find out
  return "https://" + authority_;
}

Error RegistryClient::unreachable(const Error& error) const {
  // Plain HTTP is the likely cause only when the TLS handshake got another
  // answer; a name that does not resolve or a port that refuses is not helped.
  const bool tls = error.message().find(http::kTlsHandshakeFailed) != std::string::npos;
  return error.context("registry " + authority_ + " does not answer" +
                       (insecure_ || !tls ? "" : " (if it speaks plain HTTP, pass --insecure-registry " + authority_ + ")"));
}

Result<void> RegistryClient::ping() {
  std::vector<std::string> schemes = {"https"};
  if (insecure_) schemes.push_back("http");
  std::optional<Error> first_error;
  for (const auto& scheme : schemes) {
    http::Request req;
    req.url = scheme + "://" + authority_ + "/v2/";
    req.follow_redirects = true;
    req.max_body = 64 * 1024;
    if (insecure_ && scheme == "https") req.max_attempts = 1;  // see send_probing
    ++pings_;
    auto resp = transport_->send(req);
    if (!resp) {
      // Every scheme's failure is reported, the last one's code kept.
      first_error = first_error ? Error(resp.error().code(), "over https: " + first_error->message() +
                                                                 "; over " + scheme + ": " + resp.error().message())
                                : resp.error();
      continue;  // an insecure host may speak only plain HTTP
    }
    if (resp->status == 401) {
      if (auto ch = pick_challenge(resp->headers.get_all("WWW-Authenticate"))) auth_->learn(*ch);
    } else if (resp->status >= 500 || resp->status == 429) {
      return fail(registry_error(*resp, "registry " + authority_ + ": GET /v2/"));
    }
    // 200, 401 and even 404 (registries behind path routers) all mean "a
    // registry answers here"; per-request statuses say the rest.
    std::lock_guard lock(mutex_);
    origin_ = scheme + "://" + authority_;
    return {};
  }
  return fail(unreachable(*first_error));
}

Result<http::Response> RegistryClient::send(http::Request& request, std::vector<std::string> scopes) {
  request.follow_redirects = true;
  const std::string https = "https://" + authority_;
  std::string base;
  {
    std::lock_guard lock(mutex_);
    if (origin_.empty() && !insecure_) origin_ = https;
    base = origin_;
  }
  if (base.empty()) {
    std::unique_lock probe(probe_mutex_);
    {
      std::lock_guard lock(mutex_);
      base = origin_;
    }
    if (base.empty()) {
      if (replayable(request)) return send_probing(request, scopes);
      STRATA_TRY_VOID(ping());
      std::lock_guard lock(mutex_);
      base = origin_;
    }
  }
  rebase(request.url, https, base);
  // A body that cannot be sent twice must not be the registry's first
  // request: its 401 could not be answered. (After any answer the challenge,
  // if there is one, is known.)
  if (!replayable(request) && !auth_->knows_challenge() && !answered_.load() && pings_.load() == 0)
    STRATA_TRY_VOID(ping());
  return send_authorized(request, scopes, base, 0);
}

Result<http::Response> RegistryClient::send_probing(http::Request& request, std::vector<std::string>& scopes) {
  const std::string https = "https://" + authority_;
  const std::string http = "http://" + authority_;
  auto resp = send_authorized(request, scopes, https, 1);
  if (resp) {
    std::lock_guard lock(mutex_);
    origin_ = https;
    return resp;
  }
  if (!is_network_failure(resp.error())) return resp;
  // No HTTP answer over TLS: try plain HTTP, which this host may speak.
  if (request.body != nullptr) STRATA_TRY_VOID(request.body->rewind());
  rebase(request.url, https, http);
  auto plain = send_authorized(request, scopes, http, 0);
  if (!plain) {
    // Neither answered: say what each did (a timeout over HTTP matters more
    // than the TLS handshake a plain-HTTP server could not make).
    if (is_network_failure(plain.error())) {
      return fail(unreachable(Error(plain.error().code(), "over https: " + resp.error().message() +
                                                              "; over http: " + plain.error().message())));
    }
    return plain;
  }
  std::lock_guard lock(mutex_);
  origin_ = http;
  return plain;
}

Result<http::Response> RegistryClient::send_authorized(http::Request& request, std::vector<std::string>& scopes,
                                                       const std::string& base, int first_attempts) {
  const bool own_origin = http::same_origin(request.url, base);
  bool retried = false;
  for (int attempt = 0; attempt < 4; ++attempt) {
    request.headers.remove("Authorization");
    const bool knew_challenge = auth_->knows_challenge();
    if (own_origin) STRATA_TRY_VOID(auth_->authorize(request, scopes));
    const bool had_authorization = request.headers.get("Authorization").has_value();
    request.max_attempts = attempt == 0 ? first_attempts : 0;
    auto sent = transport_->send(request);
    request.max_attempts = 0;
    if (!sent) {
      if (!insecure_ && is_network_failure(sent.error()) && attempt == 0 && !answered_.load())
        return fail(unreachable(sent.error()));
      return sent;
    }
    answered_ = true;
    http::Response& resp = *sent;
    if (resp.status != 401 || !own_origin) return sent;
    if (!replayable(request) || !auth_->on_unauthorized(resp, scopes, had_authorization)) return sent;
    // A 401 that only taught the challenge (nothing was known, nothing was
    // sent) does not use up the one retry.
    if (knew_challenge || had_authorization) {
      if (retried) return sent;
      retried = true;
    }
    if (request.body != nullptr) STRATA_TRY_VOID(request.body->rewind());
  }
  return fail(ErrorCode::kUnauthorized, "registry " + authority_ + ": authorization did not settle");
}

}  // namespace strata::oci::registry
