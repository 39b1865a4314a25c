#include "oci/media_types.hpp"

#include "util/strings.hpp"

namespace strata::oci::media {

bool is_index(std::string_view t) { return t == kOciIndex || t == kDockerManifestList; }
bool is_image_manifest(std::string_view t) { return t == kOciManifest || t == kDockerManifest; }
bool is_manifest_or_index(std::string_view t) { return is_index(t) || is_image_manifest(t); }
bool is_schema1(std::string_view t) {
  return t == kDockerSchema1 || t == kDockerSchema1Signed || t == "application/json";
}

Compression layer_compression(std::string_view t) {
  if (t == kOciLayer || t == kDockerLayer || t == "application/vnd.oci.image.layer.nondistributable.v1.tar")
    return Compression::kNone;
  if (t == kOciLayerGzip || t == kDockerLayerGzip || t == kDockerForeignLayerGzip ||
      t == "application/vnd.oci.image.layer.nondistributable.v1.tar+gzip")
    return Compression::kGzip;
  if (t == kOciLayerZstd || t == "application/vnd.oci.image.layer.nondistributable.v1.tar+zstd")
    return Compression::kZstd;
  return Compression::kUnknown;
}

std::string_view strip_params(std::string_view ct) {
  auto semi = ct.find(';');
  if (semi != std::string_view::npos) ct = ct.substr(0, semi);
  return str::trim(ct);
}

Result<void> refuse_schema1(std::string_view t, std::string_view where) {
  if (t == kDockerSchema1 || t == kDockerSchema1Signed) {
    return fail(ErrorCode::kUnsupported,
                std::string(where) + " is a Docker schema 1 manifest (" + std::string(t) +
                    "), which is deprecated and not supported; re-push the image with a current "
                    "client to get a schema 2 or OCI manifest");
  }
  return {};
}

}  // namespace strata::oci::media
