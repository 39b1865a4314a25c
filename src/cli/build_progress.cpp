#include "cli/build_progress.hpp"

#include "util/strings.hpp"

namespace strata::cli {

void BuildProgress::cache_hit(const std::string& tag, const oci::Descriptor&) { log_info(g_, "cached: " + tag); }

void BuildProgress::cache_expired(const std::string& tag, std::int64_t) {
  log_info(g_, tag + ": cached overlay's archive snapshot is older than --max-age " + max_age_ + "; rebuilding");
}

void BuildProgress::fetched(const oci::Platform& p, const layer::FetchReport& r) {
  log_debug(g_, p.str() + ": " + std::to_string(r.downloaded) + " .debs downloaded (" + str::human_bytes(r.bytes) +
                    "), " + std::to_string(r.cached) + " already cached");
}

void BuildProgress::platform_built(const layer::PlatformBuild& b) {
  for (const auto& u : b.overlay.unreproduced) log_info(g_, "not reproduced: " + u);
  log_info(g_, b.platform.str() + ": " + std::to_string(b.lock.packages.size()) + " packages, " +
                   std::to_string(b.overlay.converted) + " fragments converted, " + std::to_string(b.overlay.reused) +
                   " reused");
}

void BuildProgress::warning(const std::string& message) { log_info(g_, message); }

void BuildProgress::note(const std::string& message) { log_debug(g_, message); }

}  // namespace strata::cli
