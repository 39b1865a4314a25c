#include "contract/model/contract_reader.hpp"

#include <yaml-cpp/yaml.h>

#include <nlohmann/json.hpp>

#include "contract/model/serialize.hpp"
#include "oci/yaml_load.hpp"
#include "util/fs.hpp"
#include "util/sha.hpp"
#include "util/strings.hpp"

namespace strata::contract {
namespace {

using nlohmann::json;

// The YAML tree as JSON: every scalar is a string, except the few fields
// the schema types otherwise (read through the accessors below).
json to_tree(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = to_tree(kv.second);
      return o;
    }
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& v : n) a.push_back(to_tree(v));
      return a;
    }
    case YAML::NodeType::Scalar:
      // A plain `null`/`~` is null; a quoted "null" stays text.
      if (n.Tag() != "!" && (n.Scalar() == "null" || n.Scalar() == "~")) return nullptr;
      return n.Scalar();
    default:
      return nullptr;
  }
}

// The path of a field: "egress_hosts[2].port", "ecosystems" at the top.
std::string field(std::string_view at, std::string_view key) {
  return at.empty() ? std::string(key) : std::string(at) + "." + std::string(key);
}
// The path of a list's entry: "egress_hosts[2]".
std::string item(std::string_view at, std::size_t i) { return std::string(at) + "[" + std::to_string(i) + "]"; }

class Reader {
 public:
  explicit Reader(std::string where) : where_(std::move(where)) {}

  Result<std::string> str(const json& o, const char* key, std::string_view at, bool nullable = true) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) {
      if (nullable) return std::string();
      return fail(ErrorCode::kInvalidArgument, where_ + ": " + field(at, key) + " is missing");
    }
    if (!it->is_string()) return bad(at, key, "a string");
    return it->get<std::string>();
  }
  Result<std::vector<std::string>> strings(const json& o, const char* key, std::string_view at) {
    std::vector<std::string> out;
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return out;
    if (!it->is_array()) return bad(at, key, "a list");
    for (const auto& v : *it) {
      if (!v.is_string()) return bad(at, key, "a list of strings");
      out.push_back(v.get<std::string>());
    }
    return out;
  }
  Result<const json*> list(const json& o, const char* key, std::string_view at) {
    static const json kEmpty = json::array();
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return &kEmpty;
    if (!it->is_array()) return bad(at, key, "a list");
    for (const auto& v : *it)
      if (!v.is_object()) return bad(at, key, "a list of mappings");
    return &*it;
  }
  Result<const json*> object(const json& o, const char* key, std::string_view at) {
    static const json kEmpty = json::object();
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return &kEmpty;
    if (!it->is_object()) return bad(at, key, "a mapping");
    return &*it;
  }
  Result<bool> boolean(const json& o, const char* key, std::string_view at) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return false;
    if (it->is_string() && (*it == "true" || *it == "false")) return *it == "true";
    if (it->is_boolean()) return it->get<bool>();
    return bad(at, key, "true or false");
  }
  // A TCP port, 1..65535, as a number or (from YAML) its text; absent: 443.
  Result<int> port(const json& o, const char* key, std::string_view at) {
    auto it = o.find(key);
    if (it == o.end() || it->is_null()) return 443;
    long long v = -1;
    if (it->is_number_integer()) v = it->get<long long>();
    if (it->is_string()) v = static_cast<long long>(str::parse_u64(it->get<std::string>()).value_or(0));
    if (v < 1 || v > 65535) return bad(at, key, "a port (1-65535)");
    return static_cast<int>(v);
  }
  Result<Evidence> evidence(const json& o, std::string_view at) {
    Evidence e;
    STRATA_TRY(e.file, str(o, "file", at));
    STRATA_TRY(e.field, str(o, "field", at));
    STRATA_TRY(e.value, str(o, "value", at));
    return e;
  }
  Result<std::vector<Evidence>> evidence_list(const json& o, std::string_view at) {
    std::vector<Evidence> out;
    STRATA_TRY(const json* l, list(o, "evidence", at));
    for (std::size_t i = 0; i < l->size(); ++i) {
      STRATA_TRY(auto ev, evidence((*l)[i], item(field(at, "evidence"), i)));
      out.push_back(std::move(ev));
    }
    return out;
  }
  Error unknown(std::string_view at, std::string_view value) const {
    return Error(ErrorCode::kInvalidArgument, where_ + ": " + std::string(at) + ": unknown value \"" +
                                                  std::string(value) + "\" (docs/contract.md lists the values)");
  }
  const std::string& where() const { return where_; }

 private:
  std::unexpected<Error> bad(std::string_view at, const char* key, const char* want) const {
    return fail(ErrorCode::kInvalidArgument, where_ + ": " + field(at, key) + " must be " + want);
  }
  std::string where_;
};

Result<BuildKind> build_kind(Reader& r, const std::string& v, std::string_view at) {
  for (BuildKind k : {BuildKind::kNone, BuildKind::kPrebuilt, BuildKind::kDownload, BuildKind::kCompile})
    if (v == build_kind_name(k)) return k;
  return fail(r.unknown(at, v));
}

Result<Certainty> certainty(Reader& r, const std::string& v, std::string_view at) {
  for (Certainty c : {Certainty::kKnown, Certainty::kInferred, Certainty::kAssumed})
    if (v == certainty_name(c)) return c;
  return fail(r.unknown(at, v));
}

Result<EgressOrigin> origin(Reader& r, const std::string& v, std::string_view at) {
  for (EgressOrigin o : {EgressOrigin::kDeclared, EgressOrigin::kLockfile, EgressOrigin::kConfig, EgressOrigin::kDefault,
                         EgressOrigin::kInstallTime})
    if (v == egress_origin_name(o)) return o;
  return fail(r.unknown(at, v));
}

// Absent: build (the field is written only for run).
Result<Purpose> purpose(Reader& r, const json& o, std::string_view at) {
  STRATA_TRY(std::string v, r.str(o, "purpose", at));
  if (v.empty() || v == purpose_name(Purpose::kBuild)) return Purpose::kBuild;
  if (v == purpose_name(Purpose::kRun)) return Purpose::kRun;
  return fail(r.unknown(std::string(at) + ".purpose", v));
}

Result<std::vector<SystemLib>> libs(Reader& r, const json& o, const char* key) {
  std::vector<SystemLib> out;
  STRATA_TRY(const json* l, r.list(o, key, "system_libs"));
  for (std::size_t i = 0; i < l->size(); ++i) {
    const json& e = (*l)[i];
    const std::string at = item(field("system_libs", key), i);
    SystemLib lib;
    STRATA_TRY(lib.package, r.str(e, "package", at, false));
    STRATA_TRY(lib.required_by, r.strings(e, "required_by", at));
    STRATA_TRY(lib.evidence, r.evidence_list(e, at));
    STRATA_TRY(lib.purpose, purpose(r, e, at));
    out.push_back(std::move(lib));
  }
  return out;
}

Result<std::vector<Diagnostic>> diagnostics(Reader& r, const json& t, const char* key) {
  std::vector<Diagnostic> out;
  STRATA_TRY(const json* l, r.list(t, key, ""));
  for (std::size_t i = 0; i < l->size(); ++i) {
    Diagnostic d;
    STRATA_TRY(d.file, r.str((*l)[i], "file", item(key, i)));
    STRATA_TRY(d.message, r.str((*l)[i], "message", item(key, i)));
    out.push_back(std::move(d));
  }
  return out;
}

Result<void> read_floors(Reader& r, const json& t, Contract& c) {
  STRATA_TRY(const json* floors, r.object(t, "runtime_floors", ""));
  for (const auto& [tool, f] : floors->items()) {
    std::string at = "runtime_floors." + tool;
    if (!f.is_object()) return fail(ErrorCode::kInvalidArgument, r.where() + ": " + at + " must be a mapping");
    RuntimeFloor rf;
    STRATA_TRY(rf.floor, r.str(f, "floor", at));
    STRATA_TRY(rf.satisfying, r.str(f, "satisfying", at));
    STRATA_TRY(rf.conflicts, r.strings(f, "conflicts", at));
    STRATA_TRY(const json* cs, r.list(f, "constraints", at));
    for (std::size_t i = 0; i < cs->size(); ++i) {
      const json& k = (*cs)[i];
      const std::string kat = item(at + ".constraints", i);
      Constraint con;
      STRATA_TRY(con.source, r.evidence(k, kat));
      STRATA_TRY(con.range, r.str(k, "range", kat));
      STRATA_TRY(con.floor, r.str(k, "floor", kat));
      STRATA_TRY(con.note, r.str(k, "note", kat));
      STRATA_TRY(std::string kind, r.str(k, "kind", kat));
      if (kind.empty() || kind == "support") con.kind = ConstraintKind::kSupport;  // absent before the field
      else if (kind == "pin") con.kind = ConstraintKind::kPin;
      else if (kind == "tested") con.kind = ConstraintKind::kTested;
      else return fail(ErrorCode::kInvalidArgument, r.where() + ": " + kat + ".kind " + str::quote(kind, 40) +
                                                        " is not support, pin or tested");
      STRATA_TRY(con.scope, r.str(k, "scope", kat));
      if (con.scope.empty()) con.scope = ".";
      rf.constraints.push_back(std::move(con));
    }
    STRATA_TRY(rf.pin, r.str(f, "pin", at));
    STRATA_TRY(rf.tested, r.strings(f, "tested", at));
    STRATA_TRY(const json* pv, r.object(f, "provision", at));
    STRATA_TRY(rf.provision, r.str(*pv, "range", at + ".provision"));
    STRATA_TRY(rf.provision_reason, r.str(*pv, "why", at + ".provision"));
    STRATA_TRY(const json* scopes, r.list(f, "scopes", at));
    for (std::size_t i = 0; i < scopes->size(); ++i) {
      const json& x = (*scopes)[i];
      const std::string sat = item(at + ".scopes", i);
      ScopedRequirement sc;
      STRATA_TRY(sc.scope, r.str(x, "scope", sat, false));
      STRATA_TRY(sc.satisfying, r.str(x, "satisfying", sat));
      STRATA_TRY(sc.floor, r.str(x, "floor", sat));
      STRATA_TRY(sc.pin, r.str(x, "pin", sat));
      rf.scopes.push_back(std::move(sc));
    }
    c.runtime_floors[tool] = std::move(rf);
  }
  return {};
}

Result<void> read_natives(Reader& r, const json& t, Contract& c) {
  STRATA_TRY(const json* nb, r.object(t, "native_build", ""));
  STRATA_TRY(c.native_build_required, r.boolean(*nb, "required", "native_build"));
  STRATA_TRY(const json* pkgs, r.list(*nb, "packages", "native_build"));
  for (std::size_t i = 0; i < pkgs->size(); ++i) {
    const json& p = (*pkgs)[i];
    const std::string at = item("native_build.packages", i);
    NativePackage n;
    STRATA_TRY(n.ecosystem, r.str(p, "ecosystem", at, false));
    STRATA_TRY(n.name, r.str(p, "name", at, false));
    STRATA_TRY(n.version, r.str(p, "version", at));
    STRATA_TRY(std::string build, r.str(p, "build", at, false));
    STRATA_TRY(n.build, build_kind(r, build, at + ".build"));
    STRATA_TRY(n.fallback, r.str(p, "fallback", at));
    STRATA_TRY(std::string sure, r.str(p, "certainty", at, false));
    STRATA_TRY(n.certainty, certainty(r, sure, at + ".certainty"));
    STRATA_TRY(n.optional, r.boolean(p, "optional", at));
    STRATA_TRY(n.reason, r.str(p, "reason", at));
    STRATA_TRY(n.evidence, r.evidence_list(p, at));
    STRATA_TRY(n.download_hosts, r.strings(p, "download_hosts", at));
    if (auto it = p.find("fallback_needs"); it != p.end() && !it->is_null()) {
      if (!it->is_object()) return fail(ErrorCode::kInvalidArgument, r.where() + ": " + at + ".fallback_needs must be a mapping");
      CompileNeeds need;
      STRATA_TRY(need.build_libs, r.strings(*it, "build_libs", at + ".fallback_needs"));
      STRATA_TRY(need.run_libs, r.strings(*it, "run_libs", at + ".fallback_needs"));
      STRATA_TRY(need.commands, r.strings(*it, "commands", at + ".fallback_needs"));
      STRATA_TRY(need.egress, r.strings(*it, "egress", at + ".fallback_needs"));
      n.fallback_needs = std::move(need);
    }
    c.native_packages.push_back(std::move(n));
  }
  return {};
}

Result<void> read_rest(Reader& r, const json& t, Contract& c) {
  STRATA_TRY(const json* sl, r.object(t, "system_libs", ""));
  STRATA_TRY(std::string source, r.str(*sl, "source", "system_libs"));
  if (!source.empty()) c.system_libs_source = source;
  STRATA_TRY(c.build_libs, libs(r, *sl, "build"));
  STRATA_TRY(c.run_libs, libs(r, *sl, "run"));

  STRATA_TRY(const json* eg, r.list(t, "egress_hosts", ""));
  for (std::size_t i = 0; i < eg->size(); ++i) {
    const json& e = (*eg)[i];
    const std::string at = item("egress_hosts", i);
    EgressHost h;
    STRATA_TRY(h.host, r.str(e, "host", at, false));
    STRATA_TRY(h.port, r.port(e, "port", at));
    STRATA_TRY(std::string o, r.str(e, "origin", at, false));
    STRATA_TRY(h.origin, origin(r, o, at + ".origin"));
    STRATA_TRY(std::string access, r.str(e, "access", at));
    if (!access.empty()) h.access = access;
    STRATA_TRY(h.reason, r.str(e, "reason", at));
    STRATA_TRY(h.mirror_env, r.str(e, "mirror_env", at));
    STRATA_TRY(h.evidence, r.evidence_list(e, at));
    STRATA_TRY(h.purpose, purpose(r, e, at));
    c.egress_hosts.push_back(std::move(h));
  }
  STRATA_TRY(const json* rejected, r.list(t, "egress_rejected", ""));
  for (std::size_t i = 0; i < rejected->size(); ++i) {
    const json& e = (*rejected)[i];
    const std::string at = item("egress_rejected", i);
    RejectedEgress x;
    STRATA_TRY(x.file, r.str(e, "file", at));
    STRATA_TRY(x.entry, r.str(e, "entry", at));
    STRATA_TRY(x.message, r.str(e, "message", at, false));
    c.egress_rejected.push_back(std::move(x));
  }

  STRATA_TRY(const json* tc, r.object(t, "toolchain", ""));
  STRATA_TRY(const json* cmds, r.list(*tc, "required_commands", "toolchain"));
  for (std::size_t i = 0; i < cmds->size(); ++i) {
    const std::string at = item("toolchain.required_commands", i);
    RequiredCommand rc;
    STRATA_TRY(rc.name, r.str((*cmds)[i], "name", at, false));
    STRATA_TRY(rc.reasons, r.strings((*cmds)[i], "reasons", at));
    c.required_commands.push_back(std::move(rc));
  }

  STRATA_TRY(const json* ws, r.list(t, "workspaces", ""));
  for (std::size_t i = 0; i < ws->size(); ++i) {
    const std::string at = item("workspaces", i);
    Workspace w;
    STRATA_TRY(w.path, r.str((*ws)[i], "path", at));
    STRATA_TRY(w.name, r.str((*ws)[i], "name", at));
    STRATA_TRY(w.manager, r.str((*ws)[i], "manager", at));
    c.workspaces.push_back(std::move(w));
  }
  STRATA_TRY(c.include, r.strings(t, "include", ""));
  for (const auto& need : c.include)
    if (need != purpose_name(Purpose::kRun)) return fail(r.unknown("include", need));
  STRATA_TRY(const json* kb, r.object(t, "knowledge", ""));
  for (const auto& [file, date] : kb->items())
    if (date.is_string()) c.knowledge[file] = date.get<std::string>();
  STRATA_TRY(c.warnings, diagnostics(r, t, "warnings"));
  STRATA_TRY(c.notes, diagnostics(r, t, "notes"));
  return {};
}

}  // namespace

Result<Contract> parse_contract(std::string_view text, std::string_view where) {
  STRATA_TRY(YAML::Node doc, oci::load_yaml(text, where));
  json t;
  try {
    t = to_tree(doc);
  } catch (const YAML::Exception& e) {
    return fail(ErrorCode::kInvalidArgument, std::string(where) + ": not a contract (YAML/JSON): " + e.what());
  }
  if (!t.is_object()) return fail(ErrorCode::kInvalidArgument, std::string(where) + ": not a contract (expected a mapping)");
  Reader r{std::string(where)};
  Contract c;
  STRATA_TRY(std::string version, r.str(t, "schema_version", "", false));
  if (version != std::to_string(kContractSchemaVersion)) {
    return fail(ErrorCode::kUnsupported, std::string(where) + ": schema_version " + version + " (this strata reads " +
                                             std::to_string(kContractSchemaVersion) + ")");
  }
  STRATA_TRY(c.root, r.str(t, "root", ""));
  STRATA_TRY(c.ecosystems, r.strings(t, "ecosystems", ""));
  STRATA_TRY_VOID(read_floors(r, t, c));
  STRATA_TRY_VOID(read_natives(r, t, c));
  STRATA_TRY_VOID(read_rest(r, t, c));
  return c;
}

Result<Contract> read_contract_file(const std::filesystem::path& file) {
  STRATA_TRY(std::string text, fs::read_file(file, kMaxContractBytes));
  return parse_contract(text, file.string());
}

std::string contract_digest(const Contract& c) { return "sha256:" + sha256_hex(to_json(c)); }

}  // namespace strata::contract
