#include "cli/build_progress.hpp"

#include "util/strings.hpp"

namespace strata::cli {

namespace {

std::string count(std::size_t n, const std::string& one, const std::string& many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

// "linux/amd64: 147 packages (12 converted, 135 reused); reproduced: dpkg
// database, alternatives, ldconfig; 48 script actions not reproduced (…)".
std::string build_summary(const layer::PlatformBuild& b, bool listed) {
  const auto& o = b.overlay;
  std::string line = b.platform.str() + ": " + count(b.lock.packages.size(), "package", "packages") + " (" +
                     std::to_string(o.converted) + " converted, " + std::to_string(o.reused) + " reused)";
  if (!o.reproduced.empty()) line += "; reproduced: " + str::join(o.reproduced, ", ");
  if (o.unreproduced.empty()) return line + "; every script action reproduced";
  return line + "; " + count(o.unreproduced.size(), "script action", "script actions") + " not reproduced (" +
         (listed ? "listed above" : "strata build --verbose lists them") + "; also in --json and the image annotation)";
}

}  // namespace

void BuildProgress::cache_hit(const std::string& tag, const oci::Descriptor&) {
  if (!label_.empty()) return log_debug(g_, label_ + ": cached " + tag);
  log_info(g_, "cached: " + tag);
}

void BuildProgress::cache_expired(const std::string& tag, std::int64_t) {
  log_info(g_, tag + ": cached overlay's archive snapshot is older than --max-age " + max_age_ + "; rebuilding");
}

void BuildProgress::fetched(const oci::Platform& p, const layer::FetchReport& r) {
  log_debug(g_, p.str() + ": " + std::to_string(r.downloaded) + " .debs downloaded (" + str::human_bytes(r.bytes) +
                    "), " + std::to_string(r.cached) + " already cached");
}

void BuildProgress::platform_built(const layer::PlatformBuild& b) {
  if (g_.quiet) return;
  if (g_.verbose) {
    for (const auto& u : b.overlay.unreproduced) log_info(g_, "not reproduced: " + u);
  }
  log_info(g_, (label_.empty() ? "" : label_ + " built, ") + build_summary(b, g_.verbose));
}

void BuildProgress::warning(const std::string& message) { log_info(g_, message); }

void BuildProgress::note(const std::string& message) { log_debug(g_, message); }

}  // namespace strata::cli
