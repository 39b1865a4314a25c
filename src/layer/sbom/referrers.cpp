#include "layer/sbom/referrers.hpp"

#include <algorithm>
#include <future>
#include <vector>

#include "oci/descriptor.hpp"
#include "oci/media_types.hpp"
#include "oci/store.hpp"

namespace strata::layer::sbom {
namespace {

oci::Descriptor bare(const oci::Descriptor& d) {
  oci::Descriptor out;
  out.media_type = d.media_type;
  out.digest = d.digest;
  out.size = d.size;
  return out;
}

}  // namespace

Result<std::vector<oci::Descriptor>> attach_documents(oci::Store& store, const std::vector<AttachRequest>& requests) {
  constexpr std::string_view kEmpty = "{}";
  auto config = oci::descriptor_for(std::string(oci::media::kOciEmpty), kEmpty);
  // The blobs at once (each write is durable on its own: several fsyncs
  // overlap), the empty config first; then the manifests, as the store puts
  // several (a layout: its index once; a registry without the referrers API
  // one by one, since it indexes each by rewriting one tag).
  STRATA_TRY_VOID(oci::write_blob(store, config, kEmpty));
  std::vector<oci::Descriptor> layers;
  for (const auto& r : requests) layers.push_back(oci::descriptor_for(r.artifact_type, r.document));
  {
    std::vector<std::future<Result<void>>> writes;
    for (std::size_t i = 0; i < requests.size(); ++i)
      writes.push_back(std::async(std::launch::async | std::launch::deferred,
                                  [&, i] { return oci::write_blob(store, layers[i], requests[i].document); }));
    for (auto& w : writes) STRATA_TRY_VOID(w.get());  // an early return still waits for the others
  }
  std::vector<oci::RawManifest> manifests;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const AttachRequest& r = requests[i];
    oci::ImageManifest m;
    m.media_type = std::string(oci::media::kOciManifest);
    m.artifact_type = r.artifact_type;
    m.config = config;
    m.layers.push_back(layers[i]);
    m.subject = bare(r.subject);
    m.annotations = r.annotations;
    if (!r.created.empty()) m.annotations["org.opencontainers.image.created"] = r.created;
    manifests.push_back(oci::make_raw_manifest(std::string(oci::media::kOciManifest), oci::serialize(m)));
  }
  STRATA_TRY_VOID(store.put_manifests(manifests));
  std::vector<oci::Descriptor> out;
  for (const auto& m : manifests) out.push_back(m.descriptor);
  return out;
}

Result<oci::Descriptor> attach_document(oci::Store& store, const AttachRequest& r) {
  STRATA_TRY(auto attached, attach_documents(store, {r}));
  return attached.front();
}

Result<std::optional<std::string>> find_attached_document(oci::Store& store, const oci::Descriptor& subject,
                                                          std::string_view artifact_type, std::string_view where,
                                                          const std::map<std::string, std::string>& annotations) {
  STRATA_TRY(auto listed, store.referrers(subject.digest));
  std::vector<oci::Descriptor> candidates;
  for (const auto& d : listed.manifests)
    if (d.artifact_type && *d.artifact_type == artifact_type) candidates.push_back(d);
  std::sort(candidates.begin(), candidates.end(),
            [](const oci::Descriptor& a, const oci::Descriptor& b) { return a.digest < b.digest; });
  // A candidate that cannot be read or names another subject is refused and
  // the next tried: an entry pushed into a tag-schema index cannot hide the
  // image's own document. Only when none is the image's is the refusal the answer.
  std::optional<Error> refused;
  for (const auto& d : candidates) {
    std::string what = std::string(where) + ": the referrer " + d.digest.str();
    auto fetched = oci::fetch_manifest(store, d.digest.str());
    if (!fetched) {
      if (!refused) refused = fetched.error().context(what);
      continue;
    }
    const auto subject_of = std::visit([](const auto& m) { return m.subject; }, fetched->parsed);
    if (!subject_of || subject_of->digest != subject.digest) {
      if (!refused)
        refused = Error(ErrorCode::kCorruption, what + " is listed for " + subject.digest.str() + " but names " +
                                                    (subject_of ? subject_of->digest.str() : "no subject") +
                                                    " as its subject; it is not read");
      continue;
    }
    // Another tool's artifact of the same type (an oras attach of a tar,
    // a DSSE-wrapped attestation, another predicate): not strata's form.
    const auto* m = std::get_if<oci::ImageManifest>(&fetched->parsed);
    if (!m || m->layers.size() != 1 || m->layers.front().media_type != artifact_type) continue;
    bool wanted = true;
    for (const auto& [k, v] : annotations)
      if (auto it = m->annotations.find(k); it == m->annotations.end() || it->second != v) wanted = false;
    if (!wanted) continue;
    const auto& layer = m->layers.front();
    if (layer.size < 0 || static_cast<std::uint64_t>(layer.size) > kMaxDocumentBytes) {
      if (!refused)
        refused = Error(ErrorCode::kCorruption, what + " holds a document of " + std::to_string(layer.size) +
                                                    " bytes, more than the " + std::to_string(kMaxDocumentBytes >> 20) +
                                                    " MiB strata reads");
      continue;
    }
    STRATA_TRY(auto bytes, oci::read_blob(store, layer, kMaxDocumentBytes));
    return std::optional<std::string>(std::move(bytes));
  }
  if (refused) return fail(*refused);
  return std::optional<std::string>();
}

}  // namespace strata::layer::sbom
