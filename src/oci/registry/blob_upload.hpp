// The registry BlobWriter: uploads one blob to a repository.
//
// Opening POSTs an upload session. Default (monolithic) mode: the first
// write() starts a thread doing one streaming `PUT <location>?digest=` with a
// known Content-Length whose body comes from a bounded BytePipe, so memory
// stays a few MiB whatever the blob size. Chunked mode (chunk_size > 0):
// in-order `PATCH` requests with `Content-Range`, each at least the
// registry's `OCI-Chunk-Min-Length`, always to the newest Location, then
// `PUT ?digest=`. commit() verifies size and digest locally first (a bad blob
// is never completed: the last byte is withheld, the session deleted), then
// requires 201 and a matching Docker-Content-Digest. abort() and destroying
// an uncommitted writer DELETE the session (failures ignored).
//
// Thread-safety: one writer per blob, used from one thread (BlobWriter).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "oci/descriptor.hpp"
#include "oci/registry/registry_client.hpp"

namespace strata::oci::registry {

struct UploadOptions {
  std::size_t chunk_size = 0;              // 0: one streaming PUT; else chunked PATCH uploads
  std::size_t buffer_bytes = 4 << 20;      // the pipe between write() and the upload thread
};

// `repo_url` is "<origin>/v2/<repository>"; `what` names the store in errors.
Result<std::unique_ptr<BlobWriter>> open_blob_upload(std::shared_ptr<RegistryClient> client, std::string repo_url,
                                                     std::vector<std::string> scopes, const Descriptor& desc,
                                                     const UploadOptions& options, std::string what);

// Completes a POST that answered 202: the absolute upload URL from Location.
Result<std::string> upload_location(const http::Response& response, const std::string& request_url,
                                    std::string_view what);

}  // namespace strata::oci::registry
