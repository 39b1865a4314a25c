// WWW-Authenticate challenges (RFC 9110 §11.6.1) as registries send them:
// `Basic realm="x"`, `Bearer realm="https://auth",service="reg",scope="a b",
// error="insufficient_scope"`, possibly several challenges in one header or
// in several headers. Pure functions; thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::oci::registry {

struct Challenge {
  std::string scheme;                         // lowercase: "basic", "bearer", …
  std::map<std::string, std::string> params;  // lowercase names, unquoted values

  std::string param(std::string_view name) const;
};

// Parses one header value into its challenges, skipping what cannot be parsed.
std::vector<Challenge> parse_challenges(std::string_view header);

// The first Bearer challenge, else the first Basic one, across every value.
std::optional<Challenge> pick_challenge(const std::vector<std::string>& header_values);

// The scopes a Bearer challenge names ("scope" holds space-separated scopes).
std::vector<std::string> challenge_scopes(const Challenge& c);

}  // namespace strata::oci::registry
