// MemoryStore: a Store held in memory, for tests of everything written against
// the Store interface (copy engine, builders) and as the reference behaviour
// in the store conformance suite. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include "oci/store.hpp"

namespace strata::oci {

class MemoryStore final : public Store {
 public:
  explicit MemoryStore(std::string name = "memory") : name_(std::move(name)) {}

  std::string describe() const override { return name_; }
  Result<Descriptor> resolve(std::string_view ref) override;
  Result<RawManifest> get_manifest(std::string_view ref) override;
  Result<void> put_manifest(const RawManifest& manifest, std::optional<std::string_view> tag) override;
  Result<bool> has_blob(const Descriptor& desc) override;
  Result<void> fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) override;
  Result<std::unique_ptr<BlobWriter>> blob_writer(const Descriptor& desc) override;
  Result<std::vector<std::string>> list_tags() override;
  Result<void> delete_manifest(const Digest& digest) override;

  // Test hooks.
  std::size_t blob_count() const;
  std::size_t fetch_count() const;
  void put_raw_blob(const Digest& d, std::string bytes);  // bypasses verification

 private:
  friend class MemoryBlobWriter;
  mutable std::mutex mu_;
  std::string name_;
  std::map<Digest, std::string> blobs_;
  std::map<Digest, std::string> manifest_types_;
  std::map<std::string, Digest> tags_;
  std::size_t fetches_ = 0;
};

}  // namespace strata::oci
