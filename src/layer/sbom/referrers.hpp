// Documents about an image (its SBOMs, its provenance) attached to it as OCI
// 1.1 referrers: an artifact manifest per document — the empty config, one
// layer holding the document, `artifactType` the document's media type,
// `subject` the image — put into the image's store, which indexes it as the
// store does (a registry's referrers API, else the "sha256-<hex>" tag
// schema; a layout's index.json). Found again through Store::referrers,
// each candidate's subject checked before its document is believed.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "oci/manifest.hpp"
#include "util/error.hpp"

namespace strata::oci {
class Store;
}

namespace strata::layer::sbom {

// The in-toto Statement media type: a provenance referrer's artifact type
// and layer media type (with annotation in-toto.io/predicate-type).
inline constexpr std::string_view kInTotoMediaType = "application/vnd.in-toto+json";
inline constexpr std::string_view kPredicateTypeAnnotation = "in-toto.io/predicate-type";

// The largest document read back: BuildKit caps attestations at 40 MiB.
inline constexpr std::uint64_t kMaxDocumentBytes = std::uint64_t{64} << 20;

struct AttachRequest {
  oci::Descriptor subject;       // the image manifest (media type, digest, size)
  std::string artifact_type;     // the document's media type
  std::string document;          // its bytes
  std::string created;           // org.opencontainers.image.created (RFC 3339), deterministic
  std::map<std::string, std::string> annotations;  // more, e.g. the predicate type
};

// Writes the document blob, the empty config and the artifact manifest
// into `store`; returns the manifest's descriptor (what referrers list).
// Writing the same document twice writes the same bytes.
Result<oci::Descriptor> attach_document(oci::Store& store, const AttachRequest& request);
// Several at once, their blobs written concurrently, their manifests in the
// order given; the descriptors in that order.
Result<std::vector<oci::Descriptor>> attach_documents(oci::Store& store, const std::vector<AttachRequest>& requests);

// The document of `artifact_type` attached to `subject` in `store` in
// strata's form (one layer of that media type, carrying `annotations`), or
// nullopt when none is. A listed referrer whose manifest does not name
// `subject` as its subject is refused (kCorruption naming it), never read
// as the image's; another tool's artifact of the same type is passed over.
// Several: the one with the smallest digest (the same choice on every
// machine).
Result<std::optional<std::string>> find_attached_document(oci::Store& store, const oci::Descriptor& subject,
                                                          std::string_view artifact_type, std::string_view where,
                                                          const std::map<std::string, std::string>& annotations = {});

}  // namespace strata::layer::sbom
