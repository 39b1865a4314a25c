#include "layer/build/cache_key.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>

#include "layer/apt/resolve_request.hpp"
#include "layer/overlay/overlay.hpp"
#include "layer/scratch/scratch_effects.hpp"
#include "oci/manifest.hpp"
#include "util/sha.hpp"

namespace strata::layer {

namespace {

// Each platform's base: the manifest digest the base reference gives for it,
// or for scratch the variant and recipe that make the root.
Result<nlohmann::json> base_digests(const OverlaySpec& spec, const std::vector<oci::Platform>& platforms) {
  nlohmann::json out = nlohmann::json::object();
  if (spec.scratch()) {
    std::string base = std::string(kScratchBase) + ":" + std::string(scratch_variant_name(spec.variant)) + ":" +
                       std::to_string(kScratchRecipe);
    for (const auto& p : platforms) out[p.str()] = base;
    return out;
  }
  if (!spec.base_store) return fail(ErrorCode::kInvalidArgument, "--base " + spec.base + ": no store holds it");
  STRATA_TRY(auto fetched, oci::fetch_manifest(*spec.base_store, spec.base_ref));
  for (const auto& p : platforms) {
    std::string digest = fetched.raw.descriptor.digest.str();
    if (auto* idx = std::get_if<oci::ImageIndex>(&fetched.parsed)) {
      auto m = oci::select_platform(*idx, p);
      if (m.empty()) return fail(ErrorCode::kNotFound, "--base " + spec.base + " has no image for " + p.str());
      digest = m.front().digest.str();
    }
    out[p.str()] = digest;
  }
  return out;
}

// The sources and the keys they trust: the lock's, else the spec's files.
Result<nlohmann::json> source_identities(const OverlaySpec& spec, const std::optional<Lock>& lock) {
  nlohmann::json out = nlohmann::json::array();
  if (lock) {
    for (const auto& s : lock->sources) {
      // A lock from before locks recorded the identities: the signer's fingerprint.
      auto keys = s.keys.value_or(std::vector<std::string>{s.fingerprint});
      out.push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", keys}});
    }
    return out;
  }
  STRATA_TRY(auto sources, load_sources(spec.sources));
  for (const auto& s : sources) {
    out.push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", source_key_identities(s)}});
  }
  return out;
}

}  // namespace

Result<OverlayKey> overlay_key(const OverlaySpec& spec, const std::optional<Lock>& lock,
                               const std::vector<oci::Platform>& platforms) {
  nlohmann::json j;  // std::map-backed: keys sorted, so the dump is canonical
  j["recipe"] = kOverlayRecipe;
  j["compression"] = oci::compression_name(spec.compression);
  auto packages = lock ? lock->request : spec.packages;
  std::sort(packages.begin(), packages.end());
  packages.erase(std::unique(packages.begin(), packages.end()), packages.end());
  j["packages"] = packages;
  j["platforms"] = nlohmann::json::array();
  for (const auto& p : platforms) j["platforms"].push_back(p.str());
  STRATA_TRY(j["base"], base_digests(spec, platforms));
  STRATA_TRY(j["sources"], source_identities(spec, lock));
  OverlayKey key;
  key.canonical_json = j.dump();
  key.hex = sha256_hex(key.canonical_json);
  return key;
}

}  // namespace strata::layer
