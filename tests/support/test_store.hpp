// TestStore: a small in-memory oci::Store for tests (blobs and manifests in
// maps, blob writers verify on commit). Also writes itself out as an OCI
// image layout so independent tools (umoci, skopeo) can read what a test made.
#pragma once

#include <filesystem>
#include <map>
#include <mutex>

#include <nlohmann/json.hpp>

#include "oci/store.hpp"
#include "support/shell.hpp"

namespace strata::testing {

class TestStore final : public oci::Store {
 public:
  std::string describe() const override { return "test-store"; }

  Result<oci::Descriptor> resolve(std::string_view ref) override {
    std::lock_guard l(mu_);
    auto t = tags_.find(std::string(ref));
    std::string digest = t != tags_.end() ? t->second : std::string(ref);
    auto m = manifests_.find(digest);
    if (m == manifests_.end()) return fail(ErrorCode::kNotFound, "test-store: no manifest " + std::string(ref));
    return m->second.descriptor;
  }
  Result<oci::RawManifest> get_manifest(std::string_view ref) override {
    STRATA_TRY(auto d, resolve(ref));
    std::lock_guard l(mu_);
    return manifests_.at(d.digest.str());
  }
  Result<void> put_manifest(const oci::RawManifest& m, std::optional<std::string_view> tag) override {
    std::lock_guard l(mu_);
    manifests_[m.descriptor.digest.str()] = m;
    if (tag) tags_[std::string(*tag)] = m.descriptor.digest.str();
    return {};
  }
  Result<bool> has_blob(const oci::Descriptor& d) override {
    std::lock_guard l(mu_);
    return blobs_.count(d.digest.str()) > 0;
  }
  Result<void> fetch_blob(const oci::Descriptor& d, oci::ByteSink& sink, std::uint64_t offset) override {
    std::string bytes;
    {
      std::lock_guard l(mu_);
      auto it = blobs_.find(d.digest.str());
      if (it == blobs_.end()) return fail(ErrorCode::kNotFound, "test-store: no blob " + d.digest.str());
      bytes = it->second;
    }
    for (std::size_t off = offset; off < bytes.size(); off += 65536) {
      STRATA_TRY_VOID(sink.write(oci::as_bytes(std::string_view(bytes).substr(off, 65536))));
    }
    return {};
  }
  Result<std::unique_ptr<oci::BlobWriter>> blob_writer(const oci::Descriptor& d) override {
    return std::unique_ptr<oci::BlobWriter>(new Writer(*this, d));
  }
  Result<std::vector<std::string>> list_tags() override {
    std::lock_guard l(mu_);
    std::vector<std::string> out;
    for (const auto& [t, d] : tags_) out.push_back(t);
    return out;
  }
  Result<void> delete_manifest(const oci::Digest& digest) override {
    std::lock_guard l(mu_);
    manifests_.erase(digest.str());
    return {};
  }

  // Puts bytes as a blob directly (test fixtures), returning its descriptor.
  oci::Descriptor put_blob(std::string media_type, std::string bytes) {
    auto d = oci::descriptor_for(media_type, bytes);
    std::lock_guard l(mu_);
    blobs_[d.digest.str()] = std::move(bytes);
    return d;
  }
  std::string blob(const oci::Digest& d) {
    std::lock_guard l(mu_);
    return blobs_.at(d.str());
  }
  std::size_t blob_count() {
    std::lock_guard l(mu_);
    return blobs_.size();
  }

  // Writes an OCI image layout with every blob and the tagged manifests.
  void write_layout(const std::filesystem::path& dir) {
    std::lock_guard l(mu_);
    std::filesystem::create_directories(dir / "blobs" / "sha256");
    write_file(dir / "oci-layout", R"({"imageLayoutVersion":"1.0.0"})");
    auto put = [&](const std::string& digest, const std::string& bytes) {
      write_file(dir / "blobs" / "sha256" / digest.substr(7), bytes);
    };
    for (const auto& [d, b] : blobs_) put(d, b);
    nlohmann::ordered_json index;
    index["schemaVersion"] = 2;
    index["mediaType"] = "application/vnd.oci.image.index.v1+json";
    index["manifests"] = nlohmann::ordered_json::array();
    for (const auto& [tag, d] : tags_) {
      const auto& m = manifests_.at(d);
      put(d, m.bytes);
      auto desc = oci::descriptor_to_json(m.descriptor);
      desc["annotations"] = {{"org.opencontainers.image.ref.name", tag}};
      index["manifests"].push_back(desc);
    }
    write_file(dir / "index.json", index.dump());
  }

 private:
  class Writer final : public oci::BlobWriter {
   public:
    Writer(TestStore& s, oci::Descriptor d) : store_(s), desc_(std::move(d)) {}
    Result<void> write(std::span<const std::byte> data) override {
      data_.append(reinterpret_cast<const char*>(data.data()), data.size());
      return {};
    }
    std::uint64_t offset() const override { return 0; }
    Result<void> commit() override {
      oci::DigestVerifier v(desc_.digest, desc_.size);
      STRATA_TRY_VOID(v.update(oci::as_bytes(data_)));
      STRATA_TRY_VOID(v.verify("test-store blob"));
      std::lock_guard l(store_.mu_);
      store_.blobs_[desc_.digest.str()] = std::move(data_);
      return {};
    }
    void abort() override { data_.clear(); }

   private:
    TestStore& store_;
    oci::Descriptor desc_;
    std::string data_;
  };

  std::mutex mu_;
  std::map<std::string, std::string> blobs_;
  std::map<std::string, oci::RawManifest> manifests_;
  std::map<std::string, std::string> tags_;
};

}  // namespace strata::testing
