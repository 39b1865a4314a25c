// What strata attaches to an image it wrote: its SPDX and CycloneDX SBOMs
// (the image read back; enriched with what only the writer knows) and the
// provenance of how it was made, each as a referrer of the image manifest.
// The one call behind a build's documents and provision's.
#pragma once

#include <functional>
#include <string>

#include "layer/sbom/image_sbom.hpp"
#include "layer/sbom/provenance.hpp"
#include "oci/descriptor.hpp"
#include "util/error.hpp"

namespace strata::oci {
class Store;
}

namespace strata::layer::sbom {

// strata as the documents' creator and the provenance's builder.
inline constexpr std::string_view kBuilderId = "https://strata.dev/strata";
std::string strata_version();  // "0.1.0"
std::string strata_tool();     // "strata-0.1.0", SPDX's "Tool: …" and CycloneDX's tool

struct ImageAttestations {
  oci::Descriptor image;                    // the image manifest in the store
  // The image's filesystem as its writer knows it, holding what
  // image_sbom_needs() asks for (the overlay builder's view of the layer it
  // wrote): the layers are then not read back. Null: they are.
  const oci::ImageFilesystem* fs = nullptr;
  std::function<void(ImageSbom&)> enrich;   // may be empty
  ProvenanceInput provenance;               // its subject is set to `image`
};

// Reads the image (or takes `fs`), writes the three documents into `store` as its
// referrers. The caller checks Store::keeps_referrers first.
Result<void> attach_image_attestations(oci::Store& store, const ImageAttestations& request);

}  // namespace strata::layer::sbom
