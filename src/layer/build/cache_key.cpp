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

Result<std::map<std::string, std::string>> base_manifest_digests(const OverlaySpec& spec,
                                                                 const std::vector<oci::Platform>& platforms) {
  STRATA_TRY(auto j, base_digests(spec, platforms));
  std::map<std::string, std::string> out;
  for (const auto& [platform, digest] : j.items()) out[platform] = digest.get<std::string>();
  return out;
}

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

namespace {

// The request key's document: the sources as identified by `sources`.
OverlayKey request_key(const OverlaySpec& spec, const std::vector<std::string>& packages,
                       const std::vector<oci::Platform>& platforms, nlohmann::json bases, nlohmann::json sources) {
  nlohmann::json j;
  j["recipe"] = kOverlayRecipe;
  j["compression"] = oci::compression_name(spec.compression);
  j["packages"] = sorted_requests(packages);
  j["platforms"] = nlohmann::json::array();
  for (const auto& p : platforms) j["platforms"].push_back(p.str());
  j["base"] = std::move(bases);
  j["sources"] = std::move(sources);
  if (spec.epoch) j["epoch"] = *spec.epoch;
  return key_of(j);
}

}  // namespace

Result<OverlayKey> overlay_key(const OverlaySpec& spec, const std::vector<Lock>& locks,
                               const std::vector<oci::Platform>& platforms) {
  STRATA_TRY(auto bases, base_digests(spec, platforms));
  if (!locks.empty()) {
    if (locks.size() != platforms.size()) {
      return fail(ErrorCode::kInvalidArgument, "--lock: one lock per platform built (" + std::to_string(locks.size()) +
                                                   " locks, " + std::to_string(platforms.size()) + " platforms)");
    }
    if (locks.size() == 1) {
      return content_key(spec, locks.front(), platforms.front(), bases[platforms.front().str()].get<std::string>());
    }
    nlohmann::json j;
    j["key"] = "locks";
    j["platforms"] = nlohmann::json::array();
    for (std::size_t i = 0; i < locks.size(); ++i) {
      auto k = content_key(spec, locks[i], platforms[i], bases[platforms[i].str()].get<std::string>());
      j["platforms"].push_back({{"platform", platforms[i].str()}, {"content", k.hex}});
    }
    return key_of(j);
  }
  STRATA_TRY(auto sources, source_identities(spec));
  return request_key(spec, spec.packages, platforms, std::move(bases), std::move(sources));
}

Result<OverlayKey> locks_request_key(const OverlaySpec& spec, const std::vector<Lock>& locks,
                                     const std::vector<oci::Platform>& platforms) {
  if (locks.empty()) return fail(ErrorCode::kInvalidArgument, "locks_request_key: no locks");
  STRATA_TRY(auto bases, base_digests(spec, platforms));
  auto sources_of = [](const Lock& l) -> Result<nlohmann::json> {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& s : l.sources) {
      if (!s.keys) {
        return fail(ErrorCode::kInvalidArgument, "the lock for " + l.platform + " is older than the record of its "
                                                 "sources' keys; resolve it again (strata resolve --lock-out)");
      }
      out.push_back({{"uri", s.uri}, {"suite", s.suite}, {"components", s.components}, {"keys", *s.keys}});
    }
    return out;
  };
  STRATA_TRY(auto sources, sources_of(locks.front()));
  const auto request = sorted_requests(locks.front().request);
  for (const auto& l : locks) {
    STRATA_TRY(auto other, sources_of(l));
    if (sorted_requests(l.request) != request || other != sources) {
      return fail(ErrorCode::kInvalidArgument, "the locks for " + locks.front().platform + " and " + l.platform +
                                                   " were not resolved for one request on the same sources; one "
                                                   "overlay is built from locks of one resolution");
    }
  }
  return request_key(spec, request, platforms, std::move(bases), std::move(sources));
}

}  // namespace strata::layer
