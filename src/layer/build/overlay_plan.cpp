#include "layer/build/overlay_plan.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

// The index of each platform's lock, in the order of `platforms`: one each,
// none left over.
Result<std::vector<std::size_t>> locks_by_platform(const std::vector<Lock>& locks,
                                                   const std::vector<std::filesystem::path>& paths,
                                                   const std::vector<oci::Platform>& platforms) {
  std::vector<std::size_t> out;
  std::vector<bool> used(locks.size(), false);
  for (const auto& p : platforms) {
    std::optional<std::size_t> at;
    for (std::size_t i = 0; i < locks.size(); ++i) {
      auto lp = oci::parse_platforms(locks[i].platform);
      if (!lp || lp->size() != 1 || !(lp->front() == p)) continue;
      if (at) {
        return fail(ErrorCode::kInvalidArgument, "--lock " + paths[*at].string() + " and --lock " + paths[i].string() +
                                                     " are both for " + p.str() + "; give one lock per platform");
      }
      at = i;
    }
    if (!at) {
      std::vector<std::string> have;
      for (const auto& l : locks) have.push_back(l.platform.empty() ? "(no platform)" : l.platform);
      return fail(ErrorCode::kInvalidArgument, "no --lock is for " + p.str() + " (the locks are for " +
                                                   str::join(have, ", ") + "); give one lock per platform built");
    }
    used[*at] = true;
    out.push_back(*at);
  }
  for (std::size_t i = 0; i < locks.size(); ++i) {
    if (!used[i]) {
      return fail(ErrorCode::kInvalidArgument, "--lock " + paths[i].string() + " is for " + locks[i].platform +
                                                   ", which is not among the platforms built");
    }
  }
  return out;
}

}  // namespace

const Lock* OverlayPlan::lock_for(const oci::Platform& p) const {
  for (std::size_t i = 0; i < platforms.size() && i < locks.size(); ++i)
    if (platforms[i] == p) return &locks[i];
  return nullptr;
}

Result<OverlayPlan> plan_overlay(OverlaySpec spec) {
  if (!spec.scratch() && spec.packages.empty() && spec.locks.empty()) {
    return fail(ErrorCode::kInvalidArgument, "name at least one package to add to --base " + spec.base);
  }
  OverlayPlan plan;
  std::vector<Lock> read;
  for (const auto& path : spec.locks) {
    STRATA_TRY(auto lock, read_lock_file(path));
    read.push_back(std::move(lock));
  }
  plan.platforms = spec.platforms;
  if (plan.platforms.empty()) {
    for (const auto& l : read) {
      if (l.platform.empty()) continue;
      STRATA_TRY(auto ps, oci::parse_platforms(l.platform));
      plan.platforms.insert(plan.platforms.end(), ps.begin(), ps.end());
    }
  }
  if (plan.platforms.empty()) plan.platforms = {oci::host_platform()};
  std::vector<std::size_t> lock_at;  // plan.locks[i] is read[lock_at[i]], from spec.locks[lock_at[i]]
  if (!read.empty()) {
    STRATA_TRY(lock_at, locks_by_platform(read, spec.locks, plan.platforms));
    for (std::size_t at : lock_at) plan.locks.push_back(read[at]);
  }
  if (spec.compression == oci::Compression::kUnknown) {
    return fail(ErrorCode::kInvalidArgument, "--compression: choose gzip, zstd or none");
  }
  STRATA_TRY(plan.key, overlay_key(spec, plan.locks, plan.platforms));
  if (!spec.scratch() && std::ranges::any_of(plan.locks, [](const Lock& l) { return !l.base_digest.empty(); })) {
    STRATA_TRY(auto bases, base_manifest_digests(spec, plan.platforms));
    for (std::size_t i = 0; i < plan.locks.size(); ++i) {
      const Lock& l = plan.locks[i];
      const std::string& given = bases[plan.platforms[i].str()];
      if (l.base_digest.empty() || l.base_digest == given) continue;
      plan.base_mismatches.push_back("--lock " + spec.locks[lock_at[i]].string() +
                                     " was resolved on base " + l.base_digest + ", but --base " + spec.base +
                                     " is " + given + " for " + plan.platforms[i].str());
    }
  }
  if (plan.locks.size() > 1) {
    STRATA_TRY(auto k, locks_request_key(spec, plan.locks, plan.platforms));
    plan.index_key = std::move(k);
  }
  plan.spec = std::move(spec);
  return plan;
}

}  // namespace strata::layer
