#include "contract/egress/json_policy.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <nlohmann/json.hpp>

#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

using nlohmann::json;

constexpr std::size_t kMaxHosts = 10000;

constexpr std::array<std::string_view, 9> kTopKeys = {"kind",   "version", "repo",  "contract_digest", "strata_version",
                                                      "include", "access", "hosts", "notes"};
constexpr std::array<std::string_view, 8> kHostKeys = {"host",   "port",   "methods",  "access",
                                                       "origin", "source", "reason", "evidence"};

template <std::size_t N>
Result<void> known_keys(const json& obj, const std::array<std::string_view, N>& keys, const std::string& where) {
  for (const auto& [k, v] : obj.items())
    if (std::find(keys.begin(), keys.end(), k) == keys.end())
      return fail(ErrorCode::kInvalidArgument, where + ": unknown field " + str::quote(k));
  return {};
}

Result<AllowedHost> read_host(const json& e, const std::string& where) {
  if (!e.is_object()) return fail(ErrorCode::kInvalidArgument, where + ": not an object");
  STRATA_TRY_VOID(known_keys(e, kHostKeys, where));
  AllowedHost h;
  auto host = e.find("host");
  if (host == e.end() || !host->is_string())
    return fail(ErrorCode::kInvalidArgument, where + ": host is missing or not a string");
  h.host = host->get<std::string>();
  if (auto p = e.find("port"); p != e.end()) {
    if (!p->is_number_integer())
      return fail(ErrorCode::kInvalidArgument, where + " (" + h.host + "): port is not an integer");
    auto v = p->get<long long>();
    if (v < 1 || v > 65535)
      return fail(ErrorCode::kInvalidArgument, where + ": port " + std::to_string(v) + " is outside 1-65535");
    h.port = static_cast<int>(v);
  }
  auto m = e.find("methods");
  if (m == e.end() || !m->is_array())
    return fail(ErrorCode::kInvalidArgument,
                where + " (" + h.host + "): methods is missing or not a list ([] grants every method)");
  for (const auto& x : *m) {
    if (!x.is_string()) return fail(ErrorCode::kInvalidArgument, where + " (" + h.host + "): a method is not a string");
    h.methods.push_back(x.get<std::string>());
  }
  STRATA_TRY_VOID(check_allowed_host(h, where));
  return h;
}

}  // namespace

std::string render_json(const Policy& p) {
  nlohmann::ordered_json doc;
  doc["kind"] = kJsonPolicyKind;
  doc["version"] = kJsonPolicyVersion;
  doc["repo"] = p.header.repo;
  doc["contract_digest"] = p.header.contract_digest;
  doc["strata_version"] = p.header.strata_version;
  doc["include"] = include_name(p.header.include);
  doc["access"] = "read-only";
  auto hosts = nlohmann::ordered_json::array();
  for (const auto& h : p.hosts) {
    nlohmann::ordered_json x;
    x["host"] = h.host;
    x["port"] = h.port;
    x["methods"] = nlohmann::ordered_json::array();
    for (auto m : kReadMethods) x["methods"].push_back(m);
    x["source"] = h.label();
    x["origin"] = egress_origin_name(h.origin);
    x["reason"] = h.reason;
    auto ev = nlohmann::ordered_json::array();
    for (const auto& e : h.evidence) ev.push_back({{"file", e.file}, {"field", e.field}, {"value", e.value}});
    x["evidence"] = std::move(ev);
    hosts.push_back(std::move(x));
  }
  doc["hosts"] = std::move(hosts);
  doc["notes"] = p.notes;
  // Repository bytes need not be UTF-8; they come out as U+FFFD.
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

Result<Allowlist> read_json_policy(std::string_view text, const std::string& file) {
  json doc = json::parse(text, nullptr, false);
  if (doc.is_discarded()) return fail(ErrorCode::kInvalidArgument, file + ": not valid JSON");
  if (!doc.is_object()) return fail(ErrorCode::kInvalidArgument, file + ": not a JSON object");
  auto kind = doc.find("kind");
  if (kind == doc.end() || !kind->is_string() || kind->get<std::string>() != kJsonPolicyKind)
    return fail(ErrorCode::kInvalidArgument,
                file + ": not a strata egress policy (kind is not \"" + std::string(kJsonPolicyKind) + "\")");
  auto version = doc.find("version");
  if (version == doc.end() || !version->is_number_integer() || version->get<long long>() != kJsonPolicyVersion)
    return fail(ErrorCode::kUnsupported,
                file + ": version is not " + std::to_string(kJsonPolicyVersion) + ", the one this strata reads");
  STRATA_TRY_VOID(known_keys(doc, kTopKeys, file));
  auto hosts = doc.find("hosts");
  if (hosts == doc.end() || !hosts->is_array())
    return fail(ErrorCode::kInvalidArgument, file + ": hosts is missing or not a list");
  if (hosts->size() > kMaxHosts)
    return fail(ErrorCode::kInvalidArgument,
                file + ": " + std::to_string(hosts->size()) + " hosts, more than the limit of " +
                    std::to_string(kMaxHosts));
  Allowlist list;
  list.format = "json";
  std::map<std::pair<std::string, int>, std::size_t> seen;
  for (std::size_t i = 0; i < hosts->size(); ++i) {
    std::string where = file + ": hosts[" + std::to_string(i) + "]";
    STRATA_TRY(auto h, read_host((*hosts)[i], where));
    auto [it, fresh] = seen.try_emplace({h.host, h.port}, i);
    if (!fresh)
      return fail(ErrorCode::kInvalidArgument, where + ": " + h.host + ":" + std::to_string(h.port) +
                                                   " is listed twice (also hosts[" + std::to_string(it->second) + "])");
    list.hosts.push_back(std::move(h));
  }
  return list;
}

}  // namespace strata::contract::egress
