// What build() reports while it works, for a front end to show (the library
// never prints). Callbacks come from the calling thread, in pipeline order:
// a cache hit (then nothing else), or for each platform resolved, fetched,
// notes, platform_built; warnings whenever they arise. Every callback does
// nothing by default.
#pragma once

#include <cstdint>
#include <string>

#include "layer/apt/deb_fetcher.hpp"
#include "layer/apt/lock_file.hpp"
#include "layer/build/platform_build.hpp"
#include "oci/descriptor.hpp"
#include "oci/platform.hpp"

namespace strata::layer {

class BuildObserver {
 public:
  virtual ~BuildObserver() = default;
  // The destination holds the overlay under `tag`: nothing is built.
  virtual void cache_hit(const std::string& /*tag*/, const oci::Descriptor& /*found*/) {}
  // The destination holds it, but its archive snapshot (`archive_date`,
  // seconds since the epoch) is older than the request's max_age: rebuilt.
  virtual void cache_expired(const std::string& /*tag*/, std::int64_t /*archive_date*/) {}
  // The platform's lock: resolved from the archive, or the one given.
  virtual void resolved(const oci::Platform& /*platform*/, const Lock& /*lock*/) {}
  // Its .debs are in the cache.
  virtual void fetched(const oci::Platform& /*platform*/, const FetchReport& /*report*/) {}
  // Its overlay is written.
  virtual void platform_built(const PlatformBuild& /*build*/) {}
  // Worth telling: archive warnings, apt's "Note, selecting …".
  virtual void warning(const std::string& /*message*/) {}
  // Details: the overlay builder's notes (paths filtered out, …).
  virtual void note(const std::string& /*message*/) {}
};

}  // namespace strata::layer
