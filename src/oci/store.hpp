// Store: every place an image can live (a registry repository, an OCI layout
// directory, an oci-archive or docker-archive file, memory) behind one
// interface. The copy engine, the overlay builder, the cache and pre-flight are
// written against this interface only.
//
// A Store is bound to one repository (registry) or one layout/archive; the
// `ref` arguments are a tag or a digest string within it.
//
// Thread-safety: every method may be called concurrently from several threads
// (the copy engine moves blobs in parallel), except close().
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "oci/blob_io.hpp"
#include "oci/manifest.hpp"

namespace strata::oci {

class Store {
 public:
  virtual ~Store() = default;

  // How the store is named in messages ("oci:/tmp/x", "docker://host/repo").
  virtual std::string describe() const = 0;

  // The descriptor (media type, digest, size) of the manifest or index that
  // `ref` (tag or digest) names. kNotFound when absent.
  virtual Result<Descriptor> resolve(std::string_view ref) = 0;

  // The exact bytes of a manifest or index by tag or digest, verified against
  // the digest (when asked by digest) and capped at kMaxManifestBytes.
  virtual Result<RawManifest> get_manifest(std::string_view ref) = 0;

  // Stores manifest bytes under their digest, and tags them when `tag` is set.
  // REQUIRES: every blob and child manifest it references is already present.
  virtual Result<void> put_manifest(const RawManifest& manifest,
                                    std::optional<std::string_view> tag) = 0;
  // Several untagged manifests (an image's referrers), in order: one
  // put_manifest each, unless the store can do better (a layout writes
  // their blobs at once and its index.json once).
  virtual Result<void> put_manifests(const std::vector<RawManifest>& manifests);

  virtual Result<bool> has_blob(const Descriptor& desc) = 0;

  // Streams the blob's bytes from `offset` into `sink`. The caller verifies
  // (a BlobWriter does, on commit).
  virtual Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset = 0) = 0;

  // A writer for one blob, committed only after verification.
  virtual Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) = 0;

  // Optional capability: a writer for a blob whose digest is known only once
  // its last byte is written (UnnamedBlobWriter). nullptr when the store
  // cannot; the caller then hashes the blob first and uses blob_writer().
  virtual Result<std::unique_ptr<UnnamedBlobWriter>> unnamed_blob_writer() {
    return std::unique_ptr<UnnamedBlobWriter>();
  }

  // Makes a blob that `source` holds present here without moving its bytes
  // through this process (a registry's cross-repository mount). Returns false
  // when not possible; the caller then copies the bytes.
  virtual Result<bool> mount_blob(const Descriptor& desc, Store& source) {
    (void)desc;
    (void)source;
    return false;
  }

  // Whether mount_blob(desc, source) can work at all (same registry host,
  // another repository), without asking anyone: the copy engine waits for a
  // blob in flight to `source` only when it could then mount it from there.
  virtual bool can_mount_from(const Store& source) const {
    (void)source;
    return false;
  }

  // Optional capability: the local file that holds the blob's bytes, when
  // the store keeps each blob as an immutable file of its own (an OCI
  // layout). nullopt when it does not, or does not have the blob.
  virtual std::optional<std::filesystem::path> blob_file(const Descriptor& desc) {
    (void)desc;
    return std::nullopt;
  }

  // Optional capability: makes a blob that `source` keeps as a local file
  // (blob_file) present here by hard-linking that file: blobs are immutable
  // and content-addressed, so both stores may share it. Returns false when
  // not possible (no such file, another filesystem, no permission); the
  // caller then copies the bytes.
  virtual Result<bool> link_blob(const Descriptor& desc, Store& source) {
    (void)desc;
    (void)source;
    return false;
  }

  virtual Result<std::vector<std::string>> list_tags() = 0;

  // Removes the manifest with this digest and every tag pointing at it.
  virtual Result<void> delete_manifest(const Digest& digest) = 0;

  // Whether manifests that refer to an image (signatures, SBOMs: a
  // `subject`) can be kept here and found again through referrers(). A
  // Docker or podman daemon's store and a docker-archive cannot; writers
  // that attach documents ask first instead of failing half-way.
  virtual bool keeps_referrers() const { return true; }

  // Manifests whose `subject` is `digest` (OCI referrers), as an index.
  // The default implementation reads the referrers tag schema ("sha256-<hex>").
  virtual Result<ImageIndex> referrers(const Digest& digest);

  // Finishes writing (archives are written here). Reading stores: no-op.
  virtual Result<void> close() { return {}; }
};

// The tag the referrers tag schema uses for `digest` ("sha256-<hex>").
std::string referrers_tag(const Digest& digest);

// Reads a manifest and parses it (convenience for callers that need both).
struct FetchedManifest {
  RawManifest raw;
  ParsedManifest parsed;
};
Result<FetchedManifest> fetch_manifest(Store& store, std::string_view ref);

// The image manifest for `platform`: `root` itself when it is an image, else
// the index child matching the platform, fetched from `store`. No match is an
// error naming `where`, the platform and the platforms the index has; an
// index child that is an index again is an error. On success `parsed` holds
// an ImageManifest.
Result<FetchedManifest> select_platform_manifest(Store& store, FetchedManifest root, const Platform& platform,
                                                 const std::string& where);
// fetch_manifest, then select_platform_manifest.
Result<FetchedManifest> fetch_platform_manifest(Store& store, std::string_view ref, const Platform& platform,
                                                const std::string& where);
// "linux/amd64, linux/arm64" (or "none"): the platforms an index names.
std::string index_platforms(const ImageIndex& idx);

// Reads a small blob (config) into memory, verified, refusing more than `limit`.
Result<std::string> read_blob(Store& store, const Descriptor& desc, std::size_t limit = kMaxConfigBytes);

// Writes bytes as a blob (no-op if present).
Result<void> write_blob(Store& store, const Descriptor& desc, std::string_view bytes);
// The same from a file (a cached .deb, a toolchain archive or layer),
// streamed; nothing is written when the store has the blob. `what` names the
// file in errors; bytes that are not `desc`'s (the file changed or was
// damaged) are kCorruption, so the caller can say what to do about it.
Result<void> write_blob_file(Store& store, const Descriptor& desc, const std::filesystem::path& file,
                             std::string_view what);

}  // namespace strata::oci
