// ArchiveStore: `oci-archive:FILE[:TAG]` (a tar of an OCI image layout) and
// `docker-archive:FILE[:REF]` (what `docker save` writes and `docker load` /
// `podman load` read) as a Store.
//
// Both are staged through a LayoutStore in a private directory: reading
// extracts the archive there (refusing entries that would escape it), writing
// fills it and close() writes the tar atomically (temp file, fsync, rename),
// so a failed or killed write never leaves a partial archive under FILE.
//
// A docker-archive is written in the layout Docker 25+ uses: an OCI layout
// (bit-exact blobs and manifests) plus manifest.json and repositories for
// older loaders. Legacy archives without index.json are read from
// manifest.json, with a Docker schema 2 manifest synthesised for each image.
// Thread-safe except close().
#pragma once

#include <filesystem>
#include <memory>

#include "oci/layout_store.hpp"
#include "oci/reference.hpp"

namespace strata::oci {

enum class ArchiveFormat { kOci, kDocker };
enum class ArchiveMode { kRead, kWrite };

class ArchiveStore final : public Store {
 public:
  static Result<std::unique_ptr<ArchiveStore>> open(std::filesystem::path file, ArchiveFormat format,
                                                    ArchiveMode mode);
  ~ArchiveStore() override;

  std::string describe() const override;
  Result<Descriptor> resolve(std::string_view ref) override;
  Result<RawManifest> get_manifest(std::string_view ref) override;
  Result<void> put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) override;
  Result<bool> has_blob(const Descriptor& desc) override { return layout_->has_blob(desc); }
  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) override {
    return layout_->fetch_blob(desc, sink, offset);
  }
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override {
    return layout_->blob_writer(desc);
  }
  Result<std::vector<std::string>> list_tags() override { return layout_->list_tags(); }
  Result<void> delete_manifest(const Digest& digest) override { return layout_->delete_manifest(digest); }
  Result<ImageIndex> referrers(const Digest& digest) override { return layout_->referrers(digest); }
  Result<void> close() override;

 private:
  ArchiveStore(std::filesystem::path file, ArchiveFormat format, ArchiveMode mode, std::filesystem::path staging)
      : file_(std::move(file)), format_(format), mode_(mode), staging_(std::move(staging)) {}
  Result<void> extract();
  Result<void> write_tar();
  // docker-archive tags are normalised Docker references.
  Result<std::string> normalise_tag(std::string_view ref) const;

  std::filesystem::path file_;
  ArchiveFormat format_;
  ArchiveMode mode_;
  std::filesystem::path staging_;
  std::unique_ptr<LayoutStore> layout_;
  bool closed_ = false;
};

}  // namespace strata::oci
