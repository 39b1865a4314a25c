#include "oci/registry/authenticator.hpp"

#include <algorithm>
#include <ctime>
#include <set>

#include <nlohmann/json.hpp>

#include "oci/http/url.hpp"
#include "util/strings.hpp"

namespace strata::oci::registry {

namespace {
constexpr std::int64_t kDefaultTokenLifetime = 60;
constexpr std::int64_t kExpiryMargin = 5;  // refresh a little early: requests take time
constexpr std::size_t kMaxTokenResponse = 64 * 1024;
}  // namespace

std::string base64_encode(std::string_view in) {
  static constexpr char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    std::uint32_t v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                      static_cast<unsigned char>(in[i + 2]);
    out += kChars[(v >> 18) & 63];
    out += kChars[(v >> 12) & 63];
    out += kChars[(v >> 6) & 63];
    out += kChars[v & 63];
  }
  if (i < in.size()) {
    std::uint32_t v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += kChars[(v >> 18) & 63];
    out += kChars[(v >> 12) & 63];
    out += i + 1 < in.size() ? kChars[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::int64_t> parse_rfc3339(std::string_view text) {
  std::tm tm{};
  std::string s(text);
  const char* rest = strptime(s.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (rest == nullptr) return std::nullopt;
  std::int64_t t = timegm(&tm);
  std::string_view tail(rest);
  if (!tail.empty() && tail[0] == '.') {  // fractional seconds: ignored
    tail.remove_prefix(1);
    while (!tail.empty() && std::isdigit(static_cast<unsigned char>(tail[0]))) tail.remove_prefix(1);
  }
  if (tail == "Z" || tail == "z" || tail.empty()) return t;
  if (tail.size() == 6 && (tail[0] == '+' || tail[0] == '-') && tail[3] == ':') {
    auto hh = str::parse_u64(tail.substr(1, 2));
    auto mm = str::parse_u64(tail.substr(4, 2));
    if (!hh || !mm) return std::nullopt;
    std::int64_t off = static_cast<std::int64_t>(*hh * 3600 + *mm * 60);
    return tail[0] == '+' ? t - off : t + off;
  }
  return std::nullopt;
}

Authenticator::Authenticator(std::string registry, std::optional<Credential> credential,
                             std::shared_ptr<http::Transport> transport, Clock& clock)
    : registry_(std::move(registry)),
      credential_(std::move(credential)),
      transport_(std::move(transport)),
      clock_(clock) {}

void Authenticator::learn(const Challenge& challenge) {
  std::lock_guard lock(mutex_);
  challenge_ = challenge;
}

bool Authenticator::knows_challenge() const {
  std::lock_guard lock(mutex_);
  return challenge_.has_value();
}

int Authenticator::token_fetches() const {
  std::lock_guard lock(mutex_);
  return token_fetches_;
}

std::string Authenticator::cache_key(const std::vector<std::string>& scopes) {
  std::set<std::string> sorted(scopes.begin(), scopes.end());
  return str::join(std::vector<std::string>(sorted.begin(), sorted.end()), " ");
}

namespace {

struct ParsedScope {
  std::string resource;  // "repository:team/app"
  std::set<std::string> actions;
};

ParsedScope parse_scope(std::string_view scope) {
  ParsedScope p;
  auto colon = scope.rfind(':');
  if (colon == std::string_view::npos || scope.find(':') == colon) {
    p.resource = std::string(scope);
    return p;
  }
  p.resource = std::string(scope.substr(0, colon));
  for (auto a : str::split(scope.substr(colon + 1), ','))
    if (!a.empty()) p.actions.insert(std::string(a));
  return p;
}

bool covers(const std::vector<std::string>& have, const std::vector<std::string>& want) {
  for (const auto& w : want) {
    auto pw = parse_scope(w);
    bool ok = false;
    for (const auto& h : have) {
      auto ph = parse_scope(h);
      if (ph.resource != pw.resource) continue;
      if (ph.actions.contains("*") ||
          std::includes(ph.actions.begin(), ph.actions.end(), pw.actions.begin(), pw.actions.end())) {
        ok = true;
        break;
      }
    }
    if (!ok) return false;
  }
  return true;
}

}  // namespace

const Authenticator::Token* Authenticator::find_covering(const std::vector<std::string>& scopes) const {
  const std::int64_t now = clock_.now();
  if (auto it = tokens_.find(cache_key(scopes)); it != tokens_.end() && now < it->second.expires_at - kExpiryMargin)
    return &it->second;
  for (const auto& [key, token] : tokens_)
    if (now < token.expires_at - kExpiryMargin && covers(token.scopes, scopes)) return &token;
  return nullptr;
}

Result<void> Authenticator::authorize(http::Request& request, const std::vector<std::string>& scopes) {
  std::optional<Challenge> challenge;
  {
    std::lock_guard lock(mutex_);
    challenge = challenge_;
  }
  if (!challenge) return {};
  if (challenge->scheme == "basic") {
    if (credential_ && credential_->has_basic())
      request.headers.set("Authorization",
                          "Basic " + base64_encode(credential_->username + ":" + credential_->password));
    return {};
  }
  if (challenge->scheme != "bearer") return {};
  const std::string key = cache_key(scopes);
  {
    std::lock_guard lock(mutex_);
    if (const Token* t = find_covering(scopes)) {
      request.headers.set("Authorization", "Bearer " + t->value);
      return {};
    }
  }
  // Fetched outside the lock: a slow token server must not stall other scopes.
  STRATA_TRY(auto token, fetch_token(*challenge, scopes));
  request.headers.set("Authorization", "Bearer " + token.value);
  token.scopes = scopes;
  std::lock_guard lock(mutex_);
  tokens_[key] = std::move(token);
  return {};
}

bool Authenticator::on_unauthorized(const http::Response& response, std::vector<std::string>& scopes,
                                    bool had_authorization) {
  auto challenge = pick_challenge(response.headers.get_all("WWW-Authenticate"));
  if (!challenge) return false;
  std::lock_guard lock(mutex_);
  challenge_ = challenge;
  if (challenge->scheme == "basic") {
    // Worth a retry only if credentials exist and were not already refused.
    return credential_ && credential_->has_basic() && !had_authorization;
  }
  if (challenge->scheme != "bearer") return false;
  // Forget whichever token served these scopes (exact or covering).
  std::erase_if(tokens_, [&](const auto& kv) { return covers(kv.second.scopes, scopes); });
  tokens_.erase(cache_key(scopes));
  bool added = false;
  for (auto& s : challenge_scopes(*challenge)) {
    if (std::find(scopes.begin(), scopes.end(), s) == scopes.end()) {
      scopes.insert(scopes.begin(), s);  // some registries read only the first scope
      added = true;
    }
  }
  tokens_.erase(cache_key(scopes));
  // Without a token we simply had not authenticated yet; with one, only a
  // wider scope can change the answer.
  return !had_authorization || added || challenge->param("error") == "invalid_token";
}

Result<Authenticator::Token> Authenticator::fetch_token(const Challenge& challenge,
                                                        const std::vector<std::string>& scopes) {
  const std::string realm = challenge.param("realm");
  const std::string service = challenge.param("service");
  const std::string what = "getting a token for " + registry_ + " from " + http::without_query(realm);
  if (realm.empty()) {
    return fail(ErrorCode::kUnauthorized, registry_ + " sent a Bearer challenge without a realm");
  }
  STRATA_TRY(auto realm_url, http::parse_url(realm));
  http::Request req;
  req.follow_redirects = true;
  req.max_body = kMaxTokenResponse;
  std::shared_ptr<const std::string> form;
  http::BodySource body;
  if (credential_ && !credential_->identity_token.empty()) {
    // OAuth2 refresh-token grant (docker/distribution spec/auth/oauth.md).
    std::string f = "grant_type=refresh_token&client_id=strata&refresh_token=" +
                    http::url_encode(credential_->identity_token);
    if (!service.empty()) f += "&service=" + http::url_encode(service);
    if (!scopes.empty()) f += "&scope=" + http::url_encode(str::join(scopes, " "));
    form = std::make_shared<const std::string>(std::move(f));
    body = http::body_from_string(form);
    req.method = "POST";
    req.url = realm_url.str();
    req.body = &body;
    req.headers.set("Content-Type", "application/x-www-form-urlencoded");
  } else {
    std::string url = realm_url.str();
    if (!service.empty()) url = http::append_query(url, "service", service);
    for (const auto& s : scopes) url = http::append_query(url, "scope", s);
    req.url = url;
    if (credential_ && credential_->has_basic())
      req.headers.set("Authorization", "Basic " + base64_encode(credential_->username + ":" + credential_->password));
  }
  {
    std::lock_guard lock(mutex_);
    ++token_fetches_;
  }
  STRATA_TRY(auto resp, with_context(transport_->send(req), what));
  if (resp.status == 401 || resp.status == 403) {
    return fail(ErrorCode::kUnauthorized, what + ": the token server refused the credentials (HTTP " +
                                              std::to_string(resp.status) +
                                              "); run with --authfile or check credentials");
  }
  if (resp.status != 200) {
    ErrorCode code = resp.status == 429 || resp.status >= 500 ? ErrorCode::kUnavailable : ErrorCode::kUnauthorized;
    return fail(code, what + ": HTTP " + std::to_string(resp.status));
  }
  auto j = nlohmann::json::parse(resp.body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return fail(ErrorCode::kUnauthorized, what + ": the answer is not JSON");
  Token token;
  for (const char* field : {"token", "access_token"}) {
    if (auto it = j.find(field); it != j.end() && it->is_string() && !it->get<std::string>().empty()) {
      token.value = *it;
      break;
    }
  }
  if (token.value.empty()) return fail(ErrorCode::kUnauthorized, what + ": the answer holds no token");
  std::int64_t lifetime = kDefaultTokenLifetime;
  if (auto it = j.find("expires_in"); it != j.end() && it->is_number_integer())
    lifetime = std::max<std::int64_t>(kDefaultTokenLifetime, it->get<std::int64_t>());
  std::int64_t now = clock_.now();
  std::int64_t issued = now;
  if (auto it = j.find("issued_at"); it != j.end() && it->is_string()) {
    if (auto t = parse_rfc3339(it->get<std::string>())) issued = *t;
  }
  token.expires_at = issued + lifetime;
  // A token server whose clock is far behind ours would make every token look
  // expired on arrival; then count from now instead.
  if (token.expires_at <= now + kExpiryMargin) token.expires_at = now + lifetime;
  return token;
}

}  // namespace strata::oci::registry
