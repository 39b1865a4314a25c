#include "layer/sbom/image_attestations.hpp"

#include <future>
#include <vector>

#include "layer/sbom/referrers.hpp"
#include "layer/sbom/sbom_documents.hpp"
#include "oci/descriptor.hpp"
#include "oci/store.hpp"

namespace strata::layer::sbom {

std::string strata_version() { return STRATA_VERSION; }
std::string strata_tool() { return "strata-" + strata_version(); }

Result<void> attach_image_attestations(oci::Store& store, const ImageAttestations& r) {
  const std::string where = store.describe() + " " + r.image.digest.str();
  STRATA_TRY(auto fetched, oci::fetch_manifest(store, r.image.digest.str()));
  const auto* manifest = std::get_if<oci::ImageManifest>(&fetched.parsed);
  if (!manifest) return fail(ErrorCode::kInvalidArgument, where + ": an index, not an image manifest");
  ImageSbom image;
  bool known = false;
  if (r.fs) {
    STRATA_TRY(auto cfg_bytes, oci::read_blob(store, manifest->config));
    STRATA_TRY(auto config, oci::parse_config(std::move(cfg_bytes), where + " config"));
    auto from_fs = image_sbom_of(*r.fs, fetched.raw.descriptor, *manifest, config, where, strata_tool());
    if (from_fs) {
      image = std::move(*from_fs);
      known = true;
    }
  }
  if (!known) {  // no filesystem, or one that does not fit the image: read it
    STRATA_TRY(image, read_image_sbom(store, fetched.raw, *manifest, where, strata_tool()));
  }
  if (r.enrich) r.enrich(image);
  ProvenanceInput provenance = r.provenance;
  provenance.subject = fetched.raw.descriptor;
  provenance.builder_id = kBuilderId;
  provenance.tool_version = strata_version();
  // Each document's blob is written as soon as it is made, its fsync under
  // the next one's JSON; attach_documents then finds them written.
  std::vector<AttachRequest> documents;
  std::vector<std::future<Result<void>>> early;
  auto made = [&](AttachRequest d) {
    early.push_back(std::async(std::launch::async | std::launch::deferred,
                               [&store, blob = oci::descriptor_for(d.artifact_type, d.document), bytes = d.document] {
                                 return oci::write_blob(store, blob, bytes);
                               }));
    documents.push_back(std::move(d));
  };
  for (auto f : {SbomFormat::kSpdx, SbomFormat::kCycloneDx})
    made({fetched.raw.descriptor, std::string(sbom_media_type(f)), sbom_document(image, f), image.created, {}});
  made({fetched.raw.descriptor, std::string(kInTotoMediaType), provenance_statement(provenance), image.created,
        {{std::string(kPredicateTypeAnnotation), std::string(kSlsaProvenanceV1)}}});
  for (auto& w : early) {
    if (auto written = w.get(); !written)
      return fail(written.error().context(where + ": writing its SBOMs and provenance"));
  }
  auto attached = attach_documents(store, documents);
  if (!attached) return fail(attached.error().context(where + ": attaching its SBOMs and provenance"));
  return {};
}

}  // namespace strata::layer::sbom
