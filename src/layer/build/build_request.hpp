// What build() (build.hpp) is asked for and what it works with: the request
// names the overlay (a plan) and where it goes; the context carries the
// dependencies, so a test can hand in an in-memory store, a fake clock, a
// fixture archive's transport and a throwaway home.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>

#include "layer/build/overlay_plan.hpp"
#include "layer/build/overlay_use.hpp"
#include "layer/overlay/base_fs_cache.hpp"
#include "oci/http/transport.hpp"
#include "oci/store.hpp"
#include "util/clock.hpp"

namespace strata::layer {

class BuildObserver;

// Every field has a default, so designated initializers may name only some.
struct BuildRequest {
  OverlayPlan plan{};                     // plan_overlay's
  oci::Store* dest = nullptr;             // REQUIRED: where the overlay is looked up and written
  std::optional<std::string> dest_tag{};  // a tag to give the result besides the key's
  // A cached overlay whose archive snapshot (kAnnotationArchiveDate) is
  // older than this many seconds is rebuilt; none: any cached one is used.
  std::optional<std::int64_t> max_age{};
  // Write each platform's lock here (PATH.<os>-<arch>[-<variant>] for several).
  std::filesystem::path lock_out{};
  // The overlay's last-use record (overlay_use.hpp) is rewritten at most
  // once per this many seconds: a day for a registry, an hour for a layout.
  std::int64_t use_refresh = kLayoutUseRefresh;
  // Attach each built image's SBOMs and provenance as referrers (where the
  // destination keeps referrers); false: none (`strata build --no-attestations`).
  bool attestations = true;
};

struct BuildContext {
  oci::http::Transport& http;    // to the apt archive; thread-safe
  Clock& clock;                  // --max-age, Release date checks, retry backoff
  std::filesystem::path home{};  // $STRATA_HOME: the index, .deb and fragment caches; locks/ (one per key)
  unsigned jobs = 4;             // parallel downloads and conversions
  const BaseFsCache* base_fs = nullptr;  // none: every base is read from its layers
  BuildObserver* observer = nullptr;     // none: nothing is reported
  // No network: the archive's InRelease as last fetched here, cached indexes,
  // and .debs from the cache (every missing one named at once).
  bool offline = false;
  // Seconds an InRelease confirmed current is used without asking the
  // archive (layer::ArchiveOptions::index_max_age); 0: always revalidate.
  std::int64_t index_max_age = 0;
};

}  // namespace strata::layer
