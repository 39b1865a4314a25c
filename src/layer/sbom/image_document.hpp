// `strata sbom`'s one library call: the document of one kind about one
// image — the one attached to it as a referrer when there is one (strata
// attaches them to the images it builds), else, for an SBOM, one derived
// from the image's own dpkg database and copyright files.
#pragma once

#include <string>

#include "layer/sbom/sbom_documents.hpp"
#include "oci/descriptor.hpp"
#include "oci/platform.hpp"
#include "util/error.hpp"

namespace strata::oci {
class Store;
}

namespace strata::layer::sbom {

enum class DocumentKind { kSpdx, kCycloneDx, kProvenance };

struct DocumentRequest {
  std::string ref;              // tag or digest in the store
  oci::Platform platform;       // picks the image from an index
  DocumentKind kind = DocumentKind::kSpdx;
  bool derive = false;          // an SBOM read from the image even when one is attached
  std::string where;            // names the image in errors ("docker://debian:12")
};

struct DocumentResult {
  std::string document;
  oci::Descriptor image;        // the platform's image manifest the document is about
  bool attached = false;        // read from a referrer, not derived
  bool dpkg_database = true;    // false: derived from an image without one (the document says so)
};

// kNotFound for a provenance when none is attached (only a build knows one).
Result<DocumentResult> image_document(oci::Store& store, const DocumentRequest& request);

}  // namespace strata::layer::sbom
