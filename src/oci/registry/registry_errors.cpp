#include "oci/registry/registry_errors.hpp"

#include <nlohmann/json.hpp>

#include "util/strings.hpp"

namespace strata::oci::registry {

std::vector<RegistryErrorEntry> parse_registry_errors(std::string_view body) {
  std::vector<RegistryErrorEntry> out;
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return out;
  auto it = j.find("errors");
  if (it == j.end() || !it->is_array()) return out;
  for (const auto& e : *it) {
    if (!e.is_object()) continue;
    RegistryErrorEntry entry;
    if (auto c = e.find("code"); c != e.end() && c->is_string()) entry.code = *c;
    if (auto m = e.find("message"); m != e.end() && m->is_string()) entry.message = *m;
    if (auto d = e.find("detail"); d != e.end() && !d->is_null()) {
      entry.detail = d->is_string() ? d->get<std::string>() : d->dump();
      if (entry.detail.size() > 300) entry.detail = entry.detail.substr(0, 300) + "…";
    }
    out.push_back(std::move(entry));
  }
  return out;
}

Error registry_error(const http::Response& response, std::string_view what) {
  const int status = response.status;
  auto entries = parse_registry_errors(response.body);
  std::string msg = std::string(what) + ": HTTP " + std::to_string(status);
  bool digest_invalid = false;
  bool unsupported = status == 405;
  for (const auto& e : entries) {
    msg += ": " + (e.code.empty() ? std::string("ERROR") : e.code);
    if (!e.message.empty()) msg += " (" + e.message + (e.detail.empty() ? "" : ": " + e.detail) + ")";
    digest_invalid = digest_invalid || e.code == "DIGEST_INVALID";
    unsupported = unsupported || e.code == "UNSUPPORTED";
  }
  if (entries.empty()) {
    auto text = str::trim(response.body);
    if (!text.empty() && text.size() <= 200 && text.find('<') == std::string_view::npos) msg += ": " + str::quote(text);
  }
  ErrorCode code = ErrorCode::kInvalidArgument;
  if (status == 404) {
    code = ErrorCode::kNotFound;
  } else if (status == 401 || status == 403) {
    code = ErrorCode::kUnauthorized;
    msg += "; run with --authfile or check credentials";
  } else if (status == 429 || status >= 500 || status == 408) {
    code = ErrorCode::kUnavailable;
    if (auto ra = response.headers.get("Retry-After")) msg += " (Retry-After: " + str::quote(*ra, 40) + ")";
  } else if (digest_invalid) {
    code = ErrorCode::kFailedPrecondition;
  } else if (unsupported) {
    code = ErrorCode::kUnsupported;
  } else if (status == 413) {
    msg += "; the registry refused the size";
  }
  return Error(code, std::move(msg));
}

}  // namespace strata::oci::registry
