// The two bill-of-materials formats strata writes for an ImageSbom: SPDX
// 2.3 JSON and CycloneDX 1.5 JSON. Each is a function of the ImageSbom
// alone — no clock, no randomness, no host name: identifiers that must be
// unique (SPDX's documentNamespace, CycloneDX's serialNumber) are derived
// from the document's own content, so the same image gives the same bytes
// anywhere and two different documents never share one.
//
// Pure functions; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "layer/sbom/image_sbom.hpp"

namespace strata::layer::sbom {

// The media types (IANA's for SPDX 2 JSON; CycloneDX's own), used as the
// artifact type of a referrer that carries the document.
inline constexpr std::string_view kSpdxMediaType = "application/spdx+json";
inline constexpr std::string_view kCycloneDxMediaType = "application/vnd.cyclonedx+json";

enum class SbomFormat { kSpdx, kCycloneDx };
std::string_view sbom_media_type(SbomFormat f);

// A Debian package's package URL, canonical as purl-spec says: namespace
// from os-release ID ("debian"), the version's '+' as %2B (':' kept), the
// qualifiers sorted: arch, then distro as "<ID>-<VERSION_ID>" ("debian-12",
// syft's and grype's form) when os-release says both.
std::string deb_purl(const SbomPackage& p, const ImageSbom& image);

// SPDX 2.3: the image (a CONTAINER package), its layers (ARCHIVE packages
// the image CONTAINS) and every Debian package (CONTAINED by its layer),
// with purl, checksum and download location when the builder knew the
// .deb, supplier from Maintainer, source package, declared licence (else
// NOASSERTION) and the LicenseRef texts. Indented JSON, newline-terminated.
std::string spdx_document(const ImageSbom& image);

// CycloneDX 1.5: the image as metadata.component, every Debian package a
// component (bom-ref = purl) with supplier, hashes, licences, website and
// distribution references, and its layer and source package as properties.
std::string cyclonedx_document(const ImageSbom& image);

std::string sbom_document(const ImageSbom& image, SbomFormat f);

}  // namespace strata::layer::sbom
