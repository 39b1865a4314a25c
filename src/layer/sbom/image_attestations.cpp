#include "layer/sbom/image_attestations.hpp"

#include "layer/sbom/referrers.hpp"
#include "layer/sbom/sbom_documents.hpp"
#include "oci/store.hpp"

namespace strata::layer::sbom {

std::string strata_version() { return STRATA_VERSION; }
std::string strata_tool() { return "strata-" + strata_version(); }

Result<void> attach_image_attestations(oci::Store& store, const ImageAttestations& r) {
  const std::string where = store.describe() + " " + r.image.digest.str();
  STRATA_TRY(auto fetched, oci::fetch_manifest(store, r.image.digest.str()));
  const auto* manifest = std::get_if<oci::ImageManifest>(&fetched.parsed);
  if (!manifest) return fail(ErrorCode::kInvalidArgument, where + ": an index, not an image manifest");
  STRATA_TRY(auto image, read_image_sbom(store, fetched.raw, *manifest, where, strata_tool()));
  if (r.enrich) r.enrich(image);
  ProvenanceInput provenance = r.provenance;
  provenance.subject = fetched.raw.descriptor;
  provenance.builder_id = kBuilderId;
  provenance.tool_version = strata_version();
  std::vector<AttachRequest> documents;
  for (auto f : {SbomFormat::kSpdx, SbomFormat::kCycloneDx})
    documents.push_back({fetched.raw.descriptor, std::string(sbom_media_type(f)), sbom_document(image, f),
                         image.created, {}});
  documents.push_back({fetched.raw.descriptor, std::string(kInTotoMediaType), provenance_statement(provenance),
                       image.created, {{std::string(kPredicateTypeAnnotation), std::string(kSlsaProvenanceV1)}}});
  for (const auto& d : documents) {
    auto attached = attach_document(store, d);
    if (!attached) return fail(attached.error().context(where + ": attaching " + d.artifact_type));
  }
  return {};
}

}  // namespace strata::layer::sbom
