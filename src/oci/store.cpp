#include "oci/store.hpp"

#include "util/fs.hpp"

#include "oci/media_types.hpp"

namespace strata::oci {

std::string referrers_tag(const Digest& digest) {
  std::string alg(digest.algorithm().substr(0, 32));
  std::string hex(digest.hex().substr(0, 64));
  std::string tag = alg + "-" + hex;
  for (char& c : tag)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-')) c = '-';
  return tag;
}

Result<ImageIndex> Store::referrers(const Digest& digest) {
  ImageIndex empty;
  empty.media_type = std::string(media::kOciIndex);
  auto got = get_manifest(referrers_tag(digest));
  if (!got) {
    if (got.error().is(ErrorCode::kNotFound)) return empty;
    return fail(got.error());
  }
  auto parsed = parse_manifest(got->bytes, got->descriptor.media_type, describe() + " referrers");
  if (!parsed || !std::holds_alternative<ImageIndex>(*parsed)) return empty;  // not an index: no referrers
  return std::get<ImageIndex>(std::move(*parsed));
}

Result<FetchedManifest> fetch_manifest(Store& store, std::string_view ref) {
  STRATA_TRY(auto raw, store.get_manifest(ref));
  STRATA_TRY(auto parsed, parse_manifest(raw.bytes, raw.descriptor.media_type,
                                         store.describe() + "@" + std::string(ref)));
  return FetchedManifest{std::move(raw), std::move(parsed)};
}

std::string index_platforms(const ImageIndex& idx) {
  std::string have;
  for (const auto& m : idx.manifests)
    if (m.platform) have += (have.empty() ? "" : ", ") + m.platform->str();
  return have.empty() ? "none" : have;
}

Result<FetchedManifest> select_platform_manifest(Store& store, FetchedManifest root, const Platform& platform,
                                                 const std::string& where) {
  if (auto* idx = std::get_if<ImageIndex>(&root.parsed)) {
    auto matches = select_platform(*idx, platform);
    if (matches.empty()) {
      return fail(ErrorCode::kNotFound, where + " has no image for platform " + platform.str() + " (it has: " +
                                            index_platforms(*idx) + ")");
    }
    STRATA_TRY(root, fetch_manifest(store, matches.front().digest.str()));
  }
  if (!std::holds_alternative<ImageManifest>(root.parsed)) {
    return fail(ErrorCode::kInvalidArgument, where + ": nested index without an image for " + platform.str());
  }
  return root;
}

Result<FetchedManifest> fetch_platform_manifest(Store& store, std::string_view ref, const Platform& platform,
                                                const std::string& where) {
  STRATA_TRY(auto root, fetch_manifest(store, ref));
  return select_platform_manifest(store, std::move(root), platform, where);
}

Result<std::string> read_blob(Store& store, const Descriptor& desc, std::size_t limit) {
  if (desc.size < 0 || static_cast<std::uint64_t>(desc.size) > limit) {
    return fail(ErrorCode::kInvalidArgument, store.describe() + ": blob " + desc.digest.str() +
                                                 " is too large to read into memory (" +
                                                 std::to_string(desc.size) + " bytes)");
  }
  StringSink sink(limit);
  VerifyingSink verifying(sink, desc.digest, desc.size);
  STRATA_TRY_VOID(store.fetch_blob(desc, verifying));
  STRATA_TRY_VOID(verifying.verify(store.describe() + " blob " + desc.digest.str()));
  return std::move(sink.str());
}

Result<void> write_blob_file(Store& store, const Descriptor& desc, const std::filesystem::path& file,
                             std::string_view what) {
  STRATA_TRY(bool have, store.has_blob(desc));
  if (have) return {};
  STRATA_TRY(auto w, store.blob_writer(desc));
  if (w->present()) return {};
  if (w->offset() > 0) STRATA_TRY_VOID(w->restart());
  auto sent = fs::read_chunks(file, [&](std::string_view piece) { return w->write(as_bytes(piece)); });
  if (!sent) {
    w->abort();
    return fail(sent.error().context(what));
  }
  if (auto committed = w->commit(); !committed) {
    return fail(ErrorCode::kCorruption, std::string(what) + " is not the blob " + desc.digest.str() + " (" +
                                            committed.error().message() + ")");
  }
  return {};
}

Result<void> Store::put_manifests(const std::vector<RawManifest>& manifests) {
  for (const auto& m : manifests) STRATA_TRY_VOID(put_manifest(m, std::nullopt));
  return {};
}

Result<void> write_blob(Store& store, const Descriptor& desc, std::string_view bytes) {
  STRATA_TRY(bool present, store.has_blob(desc));
  if (present) return {};
  STRATA_TRY(auto writer, store.blob_writer(desc));
  std::uint64_t off = writer->offset();
  if (off > bytes.size()) off = 0;
  STRATA_TRY_VOID(writer->write(as_bytes(bytes.substr(off))));
  return writer->commit();
}

}  // namespace strata::oci
