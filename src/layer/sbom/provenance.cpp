#include "layer/sbom/provenance.hpp"

#include "oci/manifest.hpp"

namespace strata::layer::sbom {

std::string provenance_statement(const ProvenanceInput& in) {
  using Json = nlohmann::ordered_json;
  Json statement;
  statement["_type"] = kInTotoStatementV1;
  statement["subject"] = Json::array(
      {{{"name", in.subject.digest.str()}, {"digest", {{std::string(in.subject.digest.algorithm()), std::string(in.subject.digest.hex())}}}}});
  statement["predicateType"] = kSlsaProvenanceV1;
  Json resolved = Json::array();
  for (const auto& r : in.resolved) {
    Json d;
    if (!r.uri.empty()) d["uri"] = r.uri;
    if (!r.name.empty()) d["name"] = r.name;
    if (!r.hex.empty()) d["digest"] = {{r.algorithm, r.hex}};
    resolved.push_back(std::move(d));
  }
  Json definition;
  definition["buildType"] = in.build_type;
  definition["externalParameters"] = in.external_parameters;
  if (!in.internal_parameters.empty()) definition["internalParameters"] = in.internal_parameters;
  definition["resolvedDependencies"] = resolved;
  Json run;
  run["builder"] = {{"id", in.builder_id}, {"version", {{"strata", in.tool_version}}}};
  statement["predicate"] = {{"buildDefinition", definition}, {"runDetails", run}};
  return oci::dump_json(statement, 2) + "\n";
}

}  // namespace strata::layer::sbom
