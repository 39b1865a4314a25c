#include "oci/registry/registry_client.hpp"

#include "oci/http/url.hpp"
#include "oci/registry/registry_errors.hpp"

namespace strata::oci::registry {

RegistryClient::RegistryClient(std::string api_authority, bool insecure, std::shared_ptr<http::Transport> transport,
                               std::shared_ptr<Authenticator> auth)
    : authority_(std::move(api_authority)),
      insecure_(insecure),
      transport_(std::move(transport)),
      auth_(std::move(auth)) {}

Result<std::string> RegistryClient::origin() {
  std::lock_guard lock(mutex_);
  if (origin_.empty()) STRATA_TRY_VOID(ping());
  return origin_;
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
    auto resp = transport_->send(req);
    if (!resp) {
      if (!first_error) first_error = resp.error();
      continue;  // an insecure host may speak only plain HTTP
    }
    if (resp->status == 401) {
      if (auto ch = pick_challenge(resp->headers.get_all("WWW-Authenticate"))) auth_->learn(*ch);
    } else if (resp->status >= 500 || resp->status == 429) {
      return fail(registry_error(*resp, "registry " + authority_ + ": GET /v2/"));
    }
    // 200, 401 and even 404 (registries behind path routers) all mean "a
    // registry answers here"; per-request statuses say the rest.
    origin_ = scheme + "://" + authority_;
    return {};
  }
  return fail(first_error->context("registry " + authority_ + " does not answer" +
                                   (insecure_ ? "" : " (if it speaks plain HTTP, pass --insecure-registry " +
                                                         authority_ + ")")));
}

Result<http::Response> RegistryClient::send(http::Request& request, std::vector<std::string> scopes) {
  STRATA_TRY(auto base, origin());
  request.follow_redirects = true;
  const bool own_origin = http::same_origin(request.url, base);
  for (int attempt = 0;; ++attempt) {
    request.headers.remove("Authorization");
    if (own_origin) STRATA_TRY_VOID(auth_->authorize(request, scopes));
    const bool had_authorization = request.headers.get("Authorization").has_value();
    STRATA_TRY(auto resp, transport_->send(request));
    if (resp.status != 401 || attempt > 0 || !own_origin) return resp;
    const bool replayable = request.body == nullptr || static_cast<bool>(request.body->rewind);
    if (!replayable || !auth_->on_unauthorized(resp, scopes, had_authorization)) return resp;
    if (request.body != nullptr) STRATA_TRY_VOID(request.body->rewind());
  }
}

}  // namespace strata::oci::registry
