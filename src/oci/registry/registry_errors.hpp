// Registry error responses turned into strata Errors.
//
// Registries answer failures with `{"errors":[{"code","message","detail"}]}`
// (or anything else). The Error names what was being done (store,
// operation, reference), the HTTP status and the registry's codes, and
// carries the ErrorCode callers act on: 404 → kNotFound; 401/403 →
// kUnauthorized (with what to do next); 429/5xx → kUnavailable (retries are
// already exhausted by then); DIGEST_INVALID → kFailedPrecondition; other 4xx
// → kInvalidArgument, 405/UNSUPPORTED → kUnsupported. Pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "oci/http/transport.hpp"

namespace strata::oci::registry {

struct RegistryErrorEntry {
  std::string code;     // "MANIFEST_UNKNOWN"
  std::string message;  // "manifest unknown"
  std::string detail;   // compact JSON or text, cut short
};

// The entries of a JSON error body; empty when the body is something else.
std::vector<RegistryErrorEntry> parse_registry_errors(std::string_view body);

// An Error for a response that was not what `what` expected.
// `what` reads like "docker://host/repo: GET manifest latest".
Error registry_error(const http::Response& response, std::string_view what);

}  // namespace strata::oci::registry
