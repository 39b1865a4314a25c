#include "contract/egress/contract_input.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <nlohmann/json.hpp>

#include "contract/scan/scan.hpp"
#include "contract/model/serialize.hpp"
#include "oci/yaml_load.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::contract::egress {
namespace {

using nlohmann::ordered_json;

constexpr int kMaxDepth = 64;

std::string digest_of(const ordered_json& tree) { return "sha256:" + sha256_hex(tree.dump(2) + "\n"); }

// A YAML document as the JSON tree `strata contract scan` would have
// written: quoted scalars are strings, plain ones null, booleans or
// integers when they read as such (to_yaml quotes every string).
Result<ordered_json> yaml_tree(const YAML::Node& n, int depth) {
  if (depth > kMaxDepth) return fail(ErrorCode::kInvalidArgument, "nested deeper than " + std::to_string(kMaxDepth));
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      ordered_json o = ordered_json::object();
      for (const auto& kv : n) {
        STRATA_TRY(auto v, yaml_tree(kv.second, depth + 1));
        o[kv.first.Scalar()] = std::move(v);
      }
      return o;
    }
    case YAML::NodeType::Sequence: {
      ordered_json a = ordered_json::array();
      for (const auto& e : n) {
        STRATA_TRY(auto v, yaml_tree(e, depth + 1));
        a.push_back(std::move(v));
      }
      return a;
    }
    case YAML::NodeType::Scalar: {
      const std::string& s = n.Scalar();
      if (n.Tag() == "!") return ordered_json(s);  // quoted
      if (s == "null" || s == "~") return ordered_json(nullptr);
      if (s == "true") return ordered_json(true);
      if (s == "false") return ordered_json(false);
      bool neg = s.starts_with('-');
      if (auto v = str::parse_u64(neg ? std::string_view(s).substr(1) : std::string_view(s)); v && *v < (1ull << 62))
        return neg ? ordered_json(-static_cast<long long>(*v)) : ordered_json(static_cast<long long>(*v));
      return ordered_json(s);
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return ordered_json(nullptr);
  }
  return ordered_json(nullptr);
}

Result<std::string> str_field(const ordered_json& o, const char* key, const std::string& where, bool required) {
  auto it = o.find(key);
  if (it == o.end() || it->is_null()) {
    if (required) return fail(ErrorCode::kInvalidArgument, where + ": " + key + " is missing");
    return std::string();
  }
  if (!it->is_string()) return fail(ErrorCode::kInvalidArgument, where + ": " + key + " is not a string");
  return it->get<std::string>();
}

Result<EgressOrigin> origin_of(const std::string& s, const std::string& where) {
  for (auto o : {EgressOrigin::kDeclared, EgressOrigin::kLockfile, EgressOrigin::kConfig, EgressOrigin::kDefault,
                 EgressOrigin::kInstallTime})
    if (s == egress_origin_name(o)) return o;
  return fail(ErrorCode::kInvalidArgument, where + ": origin " + str::quote(s) +
                                               " is not declared, config, lockfile, install-time or default");
}

Result<Contract> egress_part(const ordered_json& t, const std::string& file) {
  if (!t.is_object()) return fail(ErrorCode::kInvalidArgument, file + ": not a contract (not a mapping)");
  auto sv = t.find("schema_version");
  if (sv == t.end() || !sv->is_number_integer() || sv->get<long long>() != kContractSchemaVersion)
    return fail(ErrorCode::kInvalidArgument, file + ": not a contract of schema_version " +
                                                 std::to_string(kContractSchemaVersion) +
                                                 " (write one with `strata contract scan DIR`)");
  Contract c;
  STRATA_TRY(c.root, str_field(t, "root", file, false));
  auto hosts = t.find("egress_hosts");
  if (hosts != t.end() && !hosts->is_array())
    return fail(ErrorCode::kInvalidArgument, file + ": egress_hosts is not a list");
  if (hosts != t.end()) {
    for (std::size_t i = 0; i < hosts->size(); ++i) {
      const auto& e = (*hosts)[i];
      std::string where = file + ": egress_hosts[" + std::to_string(i) + "]";
      if (!e.is_object()) return fail(ErrorCode::kInvalidArgument, where + ": not a mapping");
      EgressHost h;
      STRATA_TRY(h.host, str_field(e, "host", where, true));
      if (auto p = e.find("port"); p != e.end() && !p->is_null()) {
        if (!p->is_number_integer()) return fail(ErrorCode::kInvalidArgument, where + ": port is not an integer");
        auto v = p->get<long long>();
        h.port = v < 0 || v > 65535 ? -1 : static_cast<int>(v);
      }
      STRATA_TRY(auto origin, str_field(e, "origin", where, true));
      STRATA_TRY(h.origin, origin_of(origin, where));
      STRATA_TRY(h.access, str_field(e, "access", where, false));
      if (h.access.empty()) h.access = "read-only";
      STRATA_TRY(h.reason, str_field(e, "reason", where, false));
      STRATA_TRY(h.mirror_env, str_field(e, "mirror_env", where, false));
      if (auto ev = e.find("evidence"); ev != e.end() && ev->is_array())
        for (const auto& x : *ev) {
          if (!x.is_object()) continue;
          Evidence v;
          STRATA_TRY(v.file, str_field(x, "file", where + " evidence", false));
          STRATA_TRY(v.field, str_field(x, "field", where + " evidence", false));
          STRATA_TRY(v.value, str_field(x, "value", where + " evidence", false));
          h.evidence.push_back(std::move(v));
        }
      c.egress_hosts.push_back(std::move(h));
    }
  }
  if (auto rej = t.find("egress_rejected"); rej != t.end() && !rej->is_null()) {
    if (!rej->is_array()) return fail(ErrorCode::kInvalidArgument, file + ": egress_rejected is not a list");
    for (std::size_t i = 0; i < rej->size(); ++i) {
      std::string where = file + ": egress_rejected[" + std::to_string(i) + "]";
      if (!(*rej)[i].is_object()) return fail(ErrorCode::kInvalidArgument, where + ": not a mapping");
      RejectedEgress r;
      STRATA_TRY(r.file, str_field((*rej)[i], "file", where, false));
      STRATA_TRY(r.entry, str_field((*rej)[i], "entry", where, false));
      STRATA_TRY(r.message, str_field((*rej)[i], "message", where, true));
      c.egress_rejected.push_back(std::move(r));
    }
  }
  return c;
}

}  // namespace

Result<ContractInput> scan_for_policy(const std::filesystem::path& repo) {
  STRATA_TRY(auto c, scan_repository(repo));
  ContractInput in;
  in.digest = digest_of(contract_to_tree(c));
  in.contract = std::move(c);
  return in;
}

Result<ContractInput> read_contract_file(const std::filesystem::path& file) {
  STRATA_TRY(auto text, with_context(fs::read_file(file, kMaxContractFileBytes), "reading the contract"));
  const std::string name = file.string();
  ordered_json tree;
  std::string_view t = str::trim(text);
  if (t.starts_with('{')) {
    tree = ordered_json::parse(text, nullptr, false);
    if (tree.is_discarded()) return fail(ErrorCode::kInvalidArgument, name + ": not valid JSON");
  } else {
    STRATA_TRY(YAML::Node doc, oci::load_yaml(text, name));
    try {
      STRATA_TRY(tree, with_context(yaml_tree(doc, 0), name));
    } catch (const YAML::Exception& e) {
      return fail(ErrorCode::kInvalidArgument, name + ": not a contract: " + e.what());
    }
  }
  STRATA_TRY(auto c, egress_part(tree, name));
  ContractInput in;
  in.digest = digest_of(tree);
  in.contract = std::move(c);
  return in;
}

}  // namespace strata::contract::egress
