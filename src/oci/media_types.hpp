// OCI and Docker media types, and what strata knows about each.
#pragma once

#include <string_view>

#include "util/error.hpp"

namespace strata::oci::media {

inline constexpr std::string_view kOciManifest = "application/vnd.oci.image.manifest.v1+json";
inline constexpr std::string_view kOciIndex = "application/vnd.oci.image.index.v1+json";
inline constexpr std::string_view kOciConfig = "application/vnd.oci.image.config.v1+json";
inline constexpr std::string_view kOciLayer = "application/vnd.oci.image.layer.v1.tar";
inline constexpr std::string_view kOciLayerGzip = "application/vnd.oci.image.layer.v1.tar+gzip";
inline constexpr std::string_view kOciLayerZstd = "application/vnd.oci.image.layer.v1.tar+zstd";
inline constexpr std::string_view kOciEmpty = "application/vnd.oci.empty.v1+json";
inline constexpr std::string_view kOciLayoutHeader = "application/vnd.oci.layout.header.v1+json";

inline constexpr std::string_view kDockerManifest =
    "application/vnd.docker.distribution.manifest.v2+json";
inline constexpr std::string_view kDockerManifestList =
    "application/vnd.docker.distribution.manifest.list.v2+json";
inline constexpr std::string_view kDockerConfig = "application/vnd.docker.container.image.v1+json";
inline constexpr std::string_view kDockerLayer = "application/vnd.docker.image.rootfs.diff.tar";
inline constexpr std::string_view kDockerLayerGzip =
    "application/vnd.docker.image.rootfs.diff.tar.gzip";
inline constexpr std::string_view kDockerForeignLayerGzip =
    "application/vnd.docker.image.rootfs.foreign.diff.tar.gzip";
inline constexpr std::string_view kDockerSchema1 =
    "application/vnd.docker.distribution.manifest.v1+json";
inline constexpr std::string_view kDockerSchema1Signed =
    "application/vnd.docker.distribution.manifest.v1+prettyjws";

// The Accept header for manifest GET/HEAD: every type strata can parse.
// (distribution 2.8 answers 404 for OCI content unless the OCI types are listed.)
inline constexpr std::string_view kManifestAccept =
    "application/vnd.oci.image.index.v1+json, application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json, "
    "application/vnd.docker.distribution.manifest.v2+json";

bool is_index(std::string_view media_type);
bool is_image_manifest(std::string_view media_type);
bool is_manifest_or_index(std::string_view media_type);
bool is_schema1(std::string_view media_type);

enum class Compression { kNone, kGzip, kZstd, kUnknown };
// The compression of a layer media type; kUnknown for non-layer types.
Compression layer_compression(std::string_view media_type);

// Strips parameters (";charset=…") and whitespace from a Content-Type value.
std::string_view strip_params(std::string_view content_type);

// kUnsupported with a clear message for schema1, else success.
Result<void> refuse_schema1(std::string_view media_type, std::string_view where);

}  // namespace strata::oci::media
