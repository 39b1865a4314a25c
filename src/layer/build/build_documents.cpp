#include "layer/build/build_documents.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "layer/build/build_observer.hpp"
#include "layer/sbom/image_attestations.hpp"
#include "layer/scratch/scratch_packages.hpp"
#include "oci/compress.hpp"
#include "oci/reference.hpp"
#include "util/sha.hpp"

namespace strata::layer {
namespace {

// The .deb's URL; empty when the lock names no source for it.
std::string deb_url(const Lock& lock, const LockPackage& p) {
  return p.source < lock.sources.size() ? lock.sources[p.source].uri + "/" + p.filename : std::string();
}

sbom::ProvenanceInput provenance_of(const BuildRequest& r, const PlatformBuild& b) {
  using Json = nlohmann::ordered_json;
  const OverlaySpec& spec = r.plan.spec;
  sbom::ProvenanceInput in;
  in.build_type = kOverlayBuildType;
  Json sources = Json::array();
  for (const auto& s : b.lock.sources)
    sources.push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}});
  Json ext;
  // The base by what it is: its digest, and its name when that is a
  // registry's (a path on this machine would make two machines' bytes differ).
  Json base = Json::object();
  if (auto ref = oci::parse_image_ref(spec.base); ref && ref->transport == oci::Transport::kDocker)
    base["reference"] = spec.base;
  if (!b.lock.base_digest.empty()) base["digest"] = b.lock.base_digest;
  ext["base"] = spec.scratch() ? Json(std::string(kScratchBase)) : base;
  if (spec.scratch()) ext["variant"] = scratch_variant_name(spec.variant);
  auto request = b.lock.request;
  std::sort(request.begin(), request.end());  // as the key reads it: the order asked in does not matter
  ext["request"] = request;
  ext["platform"] = b.platform.str();
  ext["compression"] = oci::compression_name(spec.compression);
  ext["sources"] = sources;
  ext["lock"] = {{"digest", "sha256:" + sha256_hex(write_lock(b.lock))}};
  if (spec.epoch) ext["sourceDateEpoch"] = *spec.epoch;
  in.external_parameters = ext;
  in.internal_parameters = {{"contentKey", b.key.tag()},
                            {"keyInputs", Json::parse(b.key.canonical_json, nullptr, false)}};
  if (!spec.scratch() && !b.lock.base_digest.empty()) {
    if (auto d = oci::Digest::parse(b.lock.base_digest))
      in.resolved.push_back({base.value("reference", std::string("base")), "base", std::string(d->algorithm()),
                             std::string(d->hex())});
  }
  for (const auto& s : b.lock.sources)
    in.resolved.push_back({s.uri + "/dists/" + s.suite, "Release of " + s.suite, "sha256", s.release_sha256});
  for (const auto& p : b.lock.packages)
    in.resolved.push_back({deb_url(b.lock, p), p.name + "_" + p.version + "_" + p.architecture + ".deb", "sha256",
                           p.sha256});
  return in;
}

}  // namespace

Result<void> attach_build_documents(const BuildRequest& r, const PlatformBuild& b, BuildObserver& observer) {
  oci::Store& dest = *r.dest;
  if (!dest.keeps_referrers()) {
    observer.note(dest.describe() + " keeps no referrers: the SBOM and provenance are not attached (`strata sbom` "
                                    "derives the SBOM from the image itself)");
    return {};
  }
  sbom::ImageAttestations a;
  a.image = b.overlay.manifest;
  a.fs = b.overlay.fs ? &*b.overlay.fs : nullptr;  // else the image is read back
  if (!a.fs) observer.note("the SBOM is read from the image written, not made from the build: " + b.overlay.fs_unknown);
  // What only the builder knows: the .deb each package of the layer came from.
  a.enrich = [&b](sbom::ImageSbom& image) {
    std::map<std::tuple<std::string, std::string, std::string>, const LockPackage*> locked;
    for (const auto& p : b.lock.packages) locked[{p.name, p.version, p.architecture}] = &p;
    for (auto& p : image.packages) {
      auto it = locked.find({p.name, p.version, p.architecture});
      if (it == locked.end()) continue;
      p.deb_sha256 = it->second->sha256;
      p.deb_url = deb_url(b.lock, *it->second);
    }
  };
  a.provenance = provenance_of(r, b);
  return sbom::attach_image_attestations(dest, a);
}

}  // namespace strata::layer
