// What `strata build` tells the user on standard error while the library
// builds (layer::BuildObserver): archive warnings; per platform one summary
// line — packages, fragments converted and reused, the effects reproduced
// and how many script actions were not — with -v also the list of those
// actions, the fetch counts and the builder's notes; nothing with -q.
#pragma once

#include <string>

#include "cli/app.hpp"
#include "layer/build/build_observer.hpp"

namespace strata::cli {

class BuildProgress final : public layer::BuildObserver {
 public:
  // `max_age` is the --max-age text, for the message when a cached overlay is too old.
  // `label` names what is built when it is not the command's own result (a
  // scratch base under a plan): it starts the summary line, and a hit is said
  // only with -v.
  BuildProgress(const GlobalOptions& g, std::string max_age, std::string label = "")
      : g_(g), max_age_(std::move(max_age)), label_(std::move(label)) {}

  void cache_hit(const std::string& tag, const oci::Descriptor& found) override;
  void cache_expired(const std::string& tag, std::int64_t archive_date) override;
  void fetched(const oci::Platform& platform, const layer::FetchReport& report) override;
  void platform_built(const layer::PlatformBuild& build) override;
  void warning(const std::string& message) override;
  void note(const std::string& message) override;

 private:
  const GlobalOptions& g_;
  std::string max_age_;
  std::string label_;
};

}  // namespace strata::cli
