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
    for (const auto& p : platforms) out[p.str()] = scratch_base_identity(spec);
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

std::vector<std::string> sorted_requests(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  return v;
}

OverlayKey key_of(const nlohmann::json& j) {
  OverlayKey key;
  key.canonical_json = j.dump();
  key.hex = sha256_hex(key.canonical_json);
  return key;
}

// The spec's sources files and the keys each trusts.
Result<nlohmann::json> source_identities(const OverlaySpec& spec) {
  nlohmann::json out = nlohmann::json::array();
  STRATA_TRY(auto sources, load_sources(spec.sources));
  for (const auto& s : sources) {
    out.push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", source_key_identities(s)}});
  }
  return out;
}

}  // namespace

std::string scratch_base_identity(const OverlaySpec& spec) {
  return std::string(kScratchBase) + ":" + std::string(scratch_variant_name(spec.variant)) + ":" +
         std::to_string(kScratchRecipe);
}

OverlayKey content_key(const OverlaySpec& spec, const Lock& lock, const oci::Platform& p, const std::string& base) {
  nlohmann::json j;  // std::map-backed: keys sorted, so the dump is canonical
  j["key"] = "content";
  j["recipe"] = kOverlayRecipe;
  j["compression"] = oci::compression_name(spec.compression);
  j["platform"] = p.str();
  j["base"] = base;
  j["request"] = sorted_requests(lock.request);
  j["packages"] = nlohmann::json::array();
  for (const auto& lp : lock.packages) {
    j["packages"].push_back(
        {{"name", lp.name}, {"version", lp.version}, {"architecture", lp.architecture}, {"sha256", lp.sha256}});
  }
  j["sources"] = nlohmann::json::array();
  for (const auto& s : lock.sources) {
    // A lock from before locks recorded the identities: the signer's fingerprint.
    auto keys = s.keys.value_or(std::vector<std::string>{s.fingerprint});
    j["sources"].push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", keys},
                            {"date", s.date}});
  }
  j["epoch"] = spec.epoch.value_or(archive_date(lock));
  return key_of(j);
}

Result<OverlayKey> overlay_key(const OverlaySpec& spec, const std::optional<Lock>& lock,
                               const std::vector<oci::Platform>& platforms) {
  STRATA_TRY(auto bases, base_digests(spec, platforms));
  if (lock) {
    if (platforms.size() != 1) return fail(ErrorCode::kInvalidArgument, "--lock builds the one platform of its lock");
    return content_key(spec, *lock, platforms.front(), bases[platforms.front().str()].get<std::string>());
  }
  nlohmann::json j;
  j["recipe"] = kOverlayRecipe;
  j["compression"] = oci::compression_name(spec.compression);
  j["packages"] = sorted_requests(spec.packages);
  j["platforms"] = nlohmann::json::array();
  for (const auto& p : platforms) j["platforms"].push_back(p.str());
  j["base"] = std::move(bases);
  STRATA_TRY(j["sources"], source_identities(spec));
  if (spec.epoch) j["epoch"] = *spec.epoch;
  return key_of(j);
}

}  // namespace strata::layer
