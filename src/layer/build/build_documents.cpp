#include "layer/build/build_documents.hpp"

#include <map>
#include <tuple>

#include "layer/build/build_observer.hpp"
#include "layer/sbom/image_sbom.hpp"
#include "layer/sbom/provenance.hpp"
#include "layer/sbom/referrers.hpp"
#include "layer/sbom/sbom_documents.hpp"
#include "layer/scratch/scratch_packages.hpp"
#include "oci/compress.hpp"
#include "util/sha.hpp"

namespace strata::layer {
namespace {

constexpr std::string_view kTool = "strata-" STRATA_VERSION;

std::string deb_url(const Lock& lock, const LockPackage& p) {
  return p.source < lock.sources.size() ? lock.sources[p.source].uri + "/" + p.filename : p.filename;
}

sbom::ProvenanceInput provenance_of(const BuildRequest& r, const PlatformBuild& b) {
  using Json = nlohmann::ordered_json;
  const OverlaySpec& spec = r.plan.spec;
  sbom::ProvenanceInput in;
  in.subject = b.overlay.manifest;
  in.build_type = kOverlayBuildType;
  in.builder_id = kBuilderId;
  in.tool_version = STRATA_VERSION;
  Json sources = Json::array();
  for (const auto& s : b.lock.sources)
    sources.push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}});
  Json ext;
  ext["base"] = spec.base;
  if (spec.scratch()) ext["variant"] = scratch_variant_name(spec.variant);
  ext["request"] = b.lock.request;
  ext["platform"] = b.platform.str();
  ext["compression"] = oci::compression_name(spec.compression);
  ext["sources"] = sources;
  ext["lock"] = {{"digest", "sha256:" + sha256_hex(write_lock(b.lock))}};
  if (spec.epoch) ext["sourceDateEpoch"] = *spec.epoch;
  in.external_parameters = ext;
  in.internal_parameters = {{"contentKey", b.key.tag()},
                            {"keyInputs", Json::parse(b.key.canonical_json, nullptr, false)}};
  if (!spec.scratch() && !b.lock.base_digest.empty()) {
    auto colon = b.lock.base_digest.find(':');
    in.resolved.push_back({spec.base, "base", b.lock.base_digest.substr(colon + 1)});
  }
  for (const auto& s : b.lock.sources)
    in.resolved.push_back({s.uri + "/dists/" + s.suite, "Release of " + s.suite, s.release_sha256});
  for (const auto& p : b.lock.packages)
    in.resolved.push_back({deb_url(b.lock, p), p.name + "_" + p.version + "_" + p.architecture + ".deb", p.sha256});
  return in;
}

}  // namespace

Result<void> attach_build_documents(const BuildRequest& r, const PlatformBuild& b, BuildObserver& observer) {
  oci::Store& dest = *r.dest;
  const std::string where = dest.describe() + " " + b.overlay.manifest.digest.str();
  STRATA_TRY(auto fetched, oci::fetch_manifest(dest, b.overlay.manifest.digest.str()));
  const auto* manifest = std::get_if<oci::ImageManifest>(&fetched.parsed);
  if (!manifest) return fail(ErrorCode::kCorruption, where + ": not an image manifest");
  STRATA_TRY(auto image, sbom::read_image_sbom(dest, fetched.raw, *manifest, where, std::string(kTool)));
  // What only the builder knows: the .deb each package of the layer came from.
  std::map<std::tuple<std::string, std::string, std::string>, const LockPackage*> locked;
  for (const auto& p : b.lock.packages) locked[{p.name, p.version, p.architecture}] = &p;
  for (auto& p : image.packages) {
    auto it = locked.find({p.name, p.version, p.architecture});
    if (it == locked.end()) continue;
    p.deb_sha256 = it->second->sha256;
    p.deb_url = deb_url(b.lock, *it->second);
  }
  std::vector<sbom::AttachRequest> documents;
  for (auto f : {sbom::SbomFormat::kSpdx, sbom::SbomFormat::kCycloneDx})
    documents.push_back({b.overlay.manifest, std::string(sbom::sbom_media_type(f)), sbom::sbom_document(image, f),
                         image.created, {}});
  documents.push_back({b.overlay.manifest, std::string(sbom::kInTotoMediaType),
                       sbom::provenance_statement(provenance_of(r, b)), image.created,
                       {{std::string(sbom::kPredicateTypeAnnotation), std::string(sbom::kSlsaProvenanceV1)}}});
  for (const auto& d : documents) {
    auto attached = sbom::attach_document(dest, d);
    if (!attached && attached.error().code() == ErrorCode::kUnsupported) {
      observer.note(dest.describe() + " keeps no referrers: the SBOM and provenance are not attached (`strata sbom` "
                                      "derives the SBOM from the image itself)");
      return {};
    }
    if (!attached) return with_context(Result<void>(fail(attached.error())), where + ": attaching " + d.artifact_type);
  }
  return {};
}

}  // namespace strata::layer
