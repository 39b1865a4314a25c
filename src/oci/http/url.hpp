// Minimal absolute-URL handling for registry traffic: split a URL into
// scheme/authority/path, resolve a Location or Link reference against the URL
// that produced it, compare origins (so credentials stay on their host), and
// percent-encode query values. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::oci::http {

struct Url {
  std::string scheme;     // "http" or "https", lowercase
  std::string authority;  // "host" or "host:port" as written (lowercased host)
  std::string host;       // without port; IPv6 keeps its brackets
  int port = 0;           // explicit port, else the scheme default
  std::string path_and_query;  // "/v2/x?y=z"; "/" when empty

  std::string origin() const { return scheme + "://" + authority; }
  std::string str() const { return origin() + path_and_query; }
};

// Parses an absolute http(s) URL, naming the input in the error.
Result<Url> parse_url(std::string_view text);

// Resolves `ref` (absolute, scheme-relative, absolute-path or relative-path)
// against the absolute URL `base`.
Result<std::string> resolve_url(std::string_view base, std::string_view ref);

// True when both URLs have the same scheme, host and effective port.
bool same_origin(std::string_view a, std::string_view b);

// Percent-encodes everything except RFC 3986 unreserved characters.
std::string url_encode(std::string_view s);

// Appends "name=value" (value encoded) with '?' or '&' as needed.
std::string append_query(std::string url, std::string_view name, std::string_view value);

// The URL without its query string, for messages: upload URLs carry signed
// state that only clutters an error.
std::string without_query(std::string_view url);

}  // namespace strata::oci::http
