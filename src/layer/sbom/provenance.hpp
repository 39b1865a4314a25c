// A build's provenance: an in-toto Statement v1 whose predicate is SLSA
// provenance v1 (buildDefinition: build type, the request as external
// parameters, every input resolved with its digest; runDetails: the
// builder). No clock, no host: the same build gives the same bytes.
//
// Pure functions; thread-safe.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "oci/descriptor.hpp"

namespace strata::layer::sbom {

inline constexpr std::string_view kInTotoStatementV1 = "https://in-toto.io/Statement/v1";
inline constexpr std::string_view kSlsaProvenanceV1 = "https://slsa.dev/provenance/v1";

// One resolved input (an in-toto ResourceDescriptor): where it came from,
// what it is, and its sha256.
struct ResolvedInput {
  std::string uri;
  std::string name;                  // empty: none
  std::string algorithm = "sha256";  // as in-toto's DigestSet names it
  std::string hex;                   // empty: the input is listed without a digest
};

struct ProvenanceInput {
  oci::Descriptor subject;  // the image manifest built
  std::string build_type;   // a URI naming what the parameters mean
  nlohmann::ordered_json external_parameters = nlohmann::ordered_json::object();
  nlohmann::ordered_json internal_parameters = nlohmann::ordered_json::object();
  std::vector<ResolvedInput> resolved;
  std::string builder_id;    // a URI (attach_image_attestations: strata's)
  std::string tool_version;  // strata's version, runDetails.builder.version
};

// The statement as indented JSON, newline-terminated.
std::string provenance_statement(const ProvenanceInput& input);

}  // namespace strata::layer::sbom
