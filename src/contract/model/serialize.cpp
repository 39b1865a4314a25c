#include "contract/model/serialize.hpp"

#include <yaml-cpp/yaml.h>

namespace strata::contract {
namespace {

using nlohmann::ordered_json;

ordered_json evidence(const Evidence& e) {
  return ordered_json{{"file", e.file}, {"field", e.field}, {"value", e.value}};
}

ordered_json evidence_list(const std::vector<Evidence>& es) {
  ordered_json a = ordered_json::array();
  for (const auto& e : es) a.push_back(evidence(e));
  return a;
}

ordered_json strings(const std::vector<std::string>& v) {
  ordered_json a = ordered_json::array();
  for (const auto& s : v) a.push_back(s);
  return a;
}

ordered_json libs(const std::vector<SystemLib>& v) {
  ordered_json a = ordered_json::array();
  for (const auto& l : v) {
    ordered_json x = {{"package", l.package}, {"required_by", strings(l.required_by)}};
    if (!l.evidence.empty()) x["evidence"] = evidence_list(l.evidence);
    if (l.purpose != Purpose::kBuild) x["purpose"] = purpose_name(l.purpose);
    a.push_back(std::move(x));
  }
  return a;
}

ordered_json diagnostics(const std::vector<Diagnostic>& v) {
  ordered_json a = ordered_json::array();
  for (const auto& d : v) a.push_back({{"file", d.file}, {"message", d.message}});
  return a;
}

void replace_unsafe(ordered_json& j) {
  if (j.is_string()) {
    std::string& s = j.get_ref<std::string&>();
    static constexpr std::string_view kFffd = "\xEF\xBF\xBD";
    for (std::string_view bad : {"\x7F", "\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9"})
      for (auto p = s.find(bad); p != std::string::npos; p = s.find(bad, p + kFffd.size())) s.replace(p, bad.size(), kFffd);
    return;
  }
  if (j.is_structured())
    for (auto& v : j) replace_unsafe(v);
}

void emit(YAML::Emitter& out, const ordered_json& j) {
  switch (j.type()) {
    case ordered_json::value_t::object:
      if (j.empty()) {
        out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
        return;
      }
      out << YAML::BeginMap;
      for (const auto& [k, v] : j.items()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, v);
      }
      out << YAML::EndMap;
      return;
    case ordered_json::value_t::array:
      if (j.empty()) {
        out << YAML::Flow << YAML::BeginSeq << YAML::EndSeq;
        return;
      }
      out << YAML::BeginSeq;
      for (const auto& v : j) emit(out, v);
      out << YAML::EndSeq;
      return;
    case ordered_json::value_t::string:
      // Quote strings so "1.20" stays a string and "true"/"null" stay text.
      out << YAML::DoubleQuoted << j.get<std::string>();
      return;
    case ordered_json::value_t::boolean:
      out << j.get<bool>();
      return;
    case ordered_json::value_t::number_integer:
    case ordered_json::value_t::number_unsigned:
      out << j.get<long long>();
      return;
    default:
      out << YAML::Null;
      return;
  }
}

}  // namespace

ordered_json contract_to_tree(const Contract& c) {
  ordered_json t;
  t["schema_version"] = c.schema_version;
  t["root"] = c.root;
  t["ecosystems"] = strings(c.ecosystems);

  ordered_json floors = ordered_json::object();
  for (const auto& [tool, rf] : c.runtime_floors) {
    ordered_json f;
    f["floor"] = rf.floor.empty() ? ordered_json(nullptr) : ordered_json(rf.floor);
    f["satisfying"] = rf.satisfying.empty() ? ordered_json(nullptr) : ordered_json(rf.satisfying);
    ordered_json cs = ordered_json::array();
    for (const auto& k : rf.constraints) {
      ordered_json x = evidence(k.source);
      x["range"] = k.range.empty() ? ordered_json(nullptr) : ordered_json(k.range);
      x["floor"] = k.floor.empty() ? ordered_json(nullptr) : ordered_json(k.floor);
      if (!k.note.empty()) x["note"] = k.note;
      x["kind"] = constraint_kind_name(k.kind);
      x["scope"] = k.scope;
      cs.push_back(std::move(x));
    }
    f["constraints"] = std::move(cs);
    f["conflicts"] = strings(rf.conflicts);
    // Additive in schema 1 (docs/contract.md, "Runtime versions").
    f["pin"] = rf.pin.empty() ? ordered_json(nullptr) : ordered_json(rf.pin);
    f["tested"] = strings(rf.tested);
    ordered_json pv;
    pv["range"] = rf.provision.empty() ? ordered_json(nullptr) : ordered_json(rf.provision);
    pv["why"] = rf.provision_reason;
    f["provision"] = std::move(pv);
    ordered_json scopes = ordered_json::array();
    for (const auto& sc : rf.scopes) {
      ordered_json x;
      x["scope"] = sc.scope;
      x["satisfying"] = sc.satisfying.empty() ? ordered_json(nullptr) : ordered_json(sc.satisfying);
      x["floor"] = sc.floor.empty() ? ordered_json(nullptr) : ordered_json(sc.floor);
      x["pin"] = sc.pin.empty() ? ordered_json(nullptr) : ordered_json(sc.pin);
      scopes.push_back(std::move(x));
    }
    f["scopes"] = std::move(scopes);
    floors[tool] = std::move(f);
  }
  t["runtime_floors"] = std::move(floors);

  ordered_json nb;
  nb["required"] = c.native_build_required;
  ordered_json pkgs = ordered_json::array();
  for (const auto& n : c.native_packages) {
    ordered_json p;
    p["ecosystem"] = n.ecosystem;
    p["name"] = n.name;
    p["version"] = n.version.empty() ? ordered_json(nullptr) : ordered_json(n.version);
    p["build"] = build_kind_name(n.build);
    if (!n.fallback.empty()) p["fallback"] = n.fallback;
    if (n.optional) p["optional"] = true;
    p["certainty"] = certainty_name(n.certainty);
    p["reason"] = n.reason;
    p["evidence"] = evidence_list(n.evidence);
    if (!n.download_hosts.empty()) p["download_hosts"] = strings(n.download_hosts);
    if (n.fallback_needs) {
      p["fallback_needs"] = {{"build_libs", strings(n.fallback_needs->build_libs)},
                             {"run_libs", strings(n.fallback_needs->run_libs)},
                             {"commands", strings(n.fallback_needs->commands)},
                             {"egress", strings(n.fallback_needs->egress)}};
    }
    pkgs.push_back(std::move(p));
  }
  nb["packages"] = std::move(pkgs);
  t["native_build"] = std::move(nb);

  t["system_libs"] = {{"source", c.system_libs_source}, {"build", libs(c.build_libs)}, {"run", libs(c.run_libs)}};

  ordered_json eg = ordered_json::array();
  for (const auto& h : c.egress_hosts) {
    ordered_json x;
    x["host"] = h.host;
    x["port"] = h.port;
    x["origin"] = egress_origin_name(h.origin);
    x["access"] = h.access;
    x["reason"] = h.reason;
    if (!h.mirror_env.empty()) x["mirror_env"] = h.mirror_env;
    x["evidence"] = evidence_list(h.evidence);
    if (h.purpose != Purpose::kBuild) x["purpose"] = purpose_name(h.purpose);
    eg.push_back(std::move(x));
  }
  t["egress_hosts"] = std::move(eg);
  ordered_json rej = ordered_json::array();
  for (const auto& r : c.egress_rejected) rej.push_back({{"file", r.file}, {"entry", r.entry}, {"message", r.message}});
  t["egress_rejected"] = std::move(rej);

  ordered_json cmds = ordered_json::array();
  for (const auto& rc : c.required_commands) cmds.push_back({{"name", rc.name}, {"reasons", strings(rc.reasons)}});
  t["toolchain"] = {{"required_commands", std::move(cmds)}};

  ordered_json ws = ordered_json::array();
  for (const auto& w : c.workspaces) ws.push_back({{"path", w.path}, {"name", w.name}, {"manager", w.manager}});
  t["workspaces"] = std::move(ws);
  if (!c.include.empty()) t["include"] = strings(c.include);

  ordered_json kb = ordered_json::object();
  for (const auto& [file, date] : c.knowledge) kb[file] = date;
  t["knowledge"] = std::move(kb);
  t["warnings"] = diagnostics(c.warnings);
  t["notes"] = diagnostics(c.notes);
  // Repository bytes need not be UTF-8 (a Latin-1 package.json, a directory
  // name, a parse error quoting them): every string of the tree is made valid
  // here, bytes that are not UTF-8 becoming U+FFFD, so the JSON and the YAML
  // say the same and neither carries invalid text.
  // (The replacement oci::dump_json makes for manifests.)
  // DEL and the Unicode line and paragraph separators (U+0085, U+2028,
  // U+2029) become U+FFFD too: YAML forbids the first unescaped and folds the
  // others, so the two forms would otherwise read differently.
  ordered_json valid = ordered_json::parse(t.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
  replace_unsafe(valid);
  return valid;
}

std::string to_json(const Contract& c) { return contract_to_tree(c).dump(2) + "\n"; }

std::string to_yaml(const Contract& c) {
  YAML::Emitter out;
  out.SetIndent(2);
  emit(out, contract_to_tree(c));
  return std::string(out.c_str()) + "\n";
}

}  // namespace strata::contract
