#include "oci/memory_store.hpp"

#include "util/strings.hpp"

namespace strata::oci {

class MemoryBlobWriter final : public BlobWriter {
 public:
  MemoryBlobWriter(MemoryStore& store, Descriptor desc)
      : store_(store), desc_(std::move(desc)), verifier_(desc_.digest, desc_.size) {}
  std::uint64_t offset() const override { return 0; }
  Result<void> write(std::span<const std::byte> data) override {
    STRATA_TRY_VOID(verifier_.update(data));
    buf_.append(reinterpret_cast<const char*>(data.data()), data.size());
    return {};
  }
  Result<void> commit() override {
    STRATA_TRY_VOID(verifier_.verify(store_.describe() + ": blob " + desc_.digest.str()));
    std::lock_guard lock(store_.mu_);
    store_.blobs_[desc_.digest] = std::move(buf_);
    return {};
  }
  Result<void> restart() override {
    buf_.clear();
    verifier_ = DigestVerifier(desc_.digest, desc_.size);
    return {};
  }
  void abort() override { buf_.clear(); }

 private:
  MemoryStore& store_;
  Descriptor desc_;
  DigestVerifier verifier_;
  std::string buf_;
};

Result<Descriptor> MemoryStore::resolve(std::string_view ref) {
  std::lock_guard lock(mu_);
  Digest d = Digest::sha256_of("");
  if (auto parsed = Digest::parse(ref)) {
    d = *parsed;
  } else {
    auto it = tags_.find(std::string(ref));
    if (it == tags_.end()) return fail(ErrorCode::kNotFound, name_ + ": no image tagged " + str::quote(ref));
    d = it->second;
  }
  auto mt = manifest_types_.find(d);
  auto blob = blobs_.find(d);
  if (mt == manifest_types_.end() || blob == blobs_.end()) return fail(ErrorCode::kNotFound, name_ + ": no manifest " + d.str());
  Descriptor desc;
  desc.media_type = mt->second;
  desc.digest = d;
  desc.size = static_cast<std::int64_t>(blob->second.size());
  return desc;
}

Result<RawManifest> MemoryStore::get_manifest(std::string_view ref) {
  STRATA_TRY(auto desc, resolve(ref));
  std::lock_guard lock(mu_);
  return RawManifest{desc, blobs_.at(desc.digest)};
}

Result<void> MemoryStore::put_manifest(const RawManifest& m, std::optional<std::string_view> tag) {
  DigestVerifier v(m.descriptor.digest, m.descriptor.size);
  STRATA_TRY_VOID(v.update(as_bytes(m.bytes)));
  STRATA_TRY_VOID(v.verify(name_ + ": manifest"));
  std::lock_guard lock(mu_);
  blobs_[m.descriptor.digest] = m.bytes;
  manifest_types_[m.descriptor.digest] = m.descriptor.media_type;
  if (tag && !tag->empty()) tags_.insert_or_assign(std::string(*tag), m.descriptor.digest);
  return {};
}

Result<bool> MemoryStore::has_blob(const Descriptor& desc) {
  std::lock_guard lock(mu_);
  return blobs_.contains(desc.digest);
}

Result<void> MemoryStore::fetch_blob(const Descriptor& desc, ByteSink& sink, std::uint64_t offset) {
  std::string copy;
  {
    std::lock_guard lock(mu_);
    ++fetches_;
    auto it = blobs_.find(desc.digest);
    if (it == blobs_.end()) return fail(ErrorCode::kNotFound, name_ + ": blob " + desc.digest.str() + " is missing");
    if (offset > it->second.size()) return fail(ErrorCode::kInvalidArgument, name_ + ": offset beyond blob end");
    copy = it->second.substr(offset);
  }
  return sink.write(as_bytes(copy));
}

Result<std::unique_ptr<BlobWriter>> MemoryStore::blob_writer(const Descriptor& desc) {
  return std::unique_ptr<BlobWriter>(new MemoryBlobWriter(*this, desc));
}

Result<std::vector<std::string>> MemoryStore::list_tags() {
  std::lock_guard lock(mu_);
  std::vector<std::string> out;
  for (const auto& [t, d] : tags_) out.push_back(t);
  return out;
}

Result<void> MemoryStore::delete_manifest(const Digest& digest) {
  std::lock_guard lock(mu_);
  if (!manifest_types_.erase(digest)) return fail(ErrorCode::kNotFound, name_ + ": no manifest " + digest.str());
  std::erase_if(tags_, [&](const auto& kv) { return kv.second == digest; });
  return {};
}

std::size_t MemoryStore::blob_count() const {
  std::lock_guard lock(mu_);
  return blobs_.size();
}
std::size_t MemoryStore::fetch_count() const {
  std::lock_guard lock(mu_);
  return fetches_;
}
void MemoryStore::put_raw_blob(const Digest& d, std::string bytes) {
  std::lock_guard lock(mu_);
  blobs_[d] = std::move(bytes);
}

}  // namespace strata::oci
