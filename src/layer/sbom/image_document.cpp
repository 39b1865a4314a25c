#include "layer/sbom/image_document.hpp"

#include "layer/sbom/image_attestations.hpp"
#include "layer/sbom/image_sbom.hpp"
#include "layer/sbom/provenance.hpp"
#include "layer/sbom/referrers.hpp"
#include "oci/store.hpp"

namespace strata::layer::sbom {

Result<DocumentResult> image_document(oci::Store& store, const DocumentRequest& r) {
  STRATA_TRY(auto fetched, oci::fetch_platform_manifest(store, r.ref, r.platform, r.where));
  const auto& manifest = std::get<oci::ImageManifest>(fetched.parsed);
  DocumentResult out;
  out.image = fetched.raw.descriptor;
  std::string_view type = r.kind == DocumentKind::kProvenance ? kInTotoMediaType
                          : r.kind == DocumentKind::kSpdx     ? kSpdxMediaType
                                                              : kCycloneDxMediaType;
  if (r.kind == DocumentKind::kProvenance || !r.derive) {
    std::map<std::string, std::string> form;
    if (r.kind == DocumentKind::kProvenance)
      form.emplace(std::string(kPredicateTypeAnnotation), std::string(kSlsaProvenanceV1));
    STRATA_TRY(auto attached, find_attached_document(store, out.image, type, r.where, form));
    if (attached) {
      out.document = std::move(*attached);
      out.attached = true;
      return out;
    }
  }
  if (r.kind == DocumentKind::kProvenance)
    return fail(ErrorCode::kNotFound, r.where + " (" + out.image.digest.str() +
                                          ") has no provenance attached: strata attaches one to the images it "
                                          "builds (strata build, strata provision); an image built elsewhere "
                                          "carries only what its builder attached");
  STRATA_TRY(auto image, read_image_sbom(store, fetched.raw, manifest, r.where, strata_tool()));
  out.dpkg_database = image.dpkg_database;
  out.document = sbom_document(image, r.kind == DocumentKind::kSpdx ? SbomFormat::kSpdx : SbomFormat::kCycloneDx);
  return out;
}

}  // namespace strata::layer::sbom
