#include "oci/http/url.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace strata::oci::http {

Result<Url> parse_url(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument, "invalid URL " + str::quote(text) + ": " + std::string(why));
  };
  auto sep = text.find("://");
  if (sep == std::string_view::npos) return bad("not absolute");
  Url u;
  u.scheme = str::lower(text.substr(0, sep));
  if (u.scheme != "http" && u.scheme != "https") return bad("scheme must be http or https");
  std::string_view rest = text.substr(sep + 3);
  auto end = rest.find_first_of("/?#");
  std::string_view auth = rest.substr(0, end);
  if (auth.empty()) return bad("no host");
  if (auth.find('@') != std::string_view::npos) return bad("credentials in URLs are not accepted");
  std::string_view host = auth;
  std::optional<int> port;
  auto colon = auth.rfind(':');
  if (colon != std::string_view::npos && auth.find(']', colon) == std::string_view::npos) {
    auto p = str::parse_u64(auth.substr(colon + 1));
    if (!p || *p == 0 || *p > 65535) return bad("invalid port");
    port = static_cast<int>(*p);
    host = auth.substr(0, colon);
  }
  if (host.empty()) return bad("no host");
  u.host = str::lower(host);
  u.authority = port ? u.host + ":" + std::to_string(*port) : u.host;
  u.port = port.value_or(u.scheme == "https" ? 443 : 80);
  std::string_view tail = end == std::string_view::npos ? std::string_view() : rest.substr(end);
  auto hash = tail.find('#');
  if (hash != std::string_view::npos) tail = tail.substr(0, hash);
  u.path_and_query = tail.empty() || tail[0] != '/' ? "/" + std::string(tail) : std::string(tail);
  return u;
}

Result<std::string> resolve_url(std::string_view base, std::string_view ref) {
  ref = str::trim(ref);
  if (ref.find("://") != std::string_view::npos) {
    STRATA_TRY(auto u, parse_url(ref));
    return u.str();
  }
  STRATA_TRY(auto b, parse_url(base));
  if (ref.starts_with("//")) {
    STRATA_TRY(auto u, parse_url(b.scheme + ":" + std::string(ref)));
    return u.str();
  }
  if (ref.starts_with("/")) return b.origin() + std::string(ref);
  if (ref.empty()) return b.str();
  if (ref.starts_with("?")) {
    auto q = b.path_and_query.find('?');
    return b.origin() + b.path_and_query.substr(0, q) + std::string(ref);
  }
  std::string path = b.path_and_query.substr(0, b.path_and_query.find('?'));
  path = path.substr(0, path.rfind('/') + 1);
  return b.origin() + path + std::string(ref);
}

bool same_origin(std::string_view a, std::string_view b) {
  auto ua = parse_url(a);
  auto ub = parse_url(b);
  return ua && ub && ua->scheme == ub->scheme && ua->host == ub->host && ua->port == ub->port;
}

std::string url_encode(std::string_view s) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string append_query(std::string url, std::string_view name, std::string_view value) {
  url += url.find('?') == std::string::npos ? '?' : '&';
  url += name;
  url += '=';
  url += url_encode(value);
  return url;
}

std::string without_query(std::string_view url) { return std::string(url.substr(0, url.find('?'))); }

}  // namespace strata::oci::http
