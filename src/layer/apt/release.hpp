// Release / InRelease files: the root of trust of an apt archive. Parsing is
// a pure function; check_release applies apt's acceptance rules with the
// current time passed in (the Clock seam lives in the caller).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::layer {

struct ReleaseEntry {
  std::uint64_t size = 0;
  std::string sha256;
};

struct Release {
  std::string origin, label, suite, codename;
  std::optional<std::int64_t> date;         // seconds since the epoch
  std::optional<std::int64_t> valid_until;
  std::vector<std::string> architectures, components;
  bool not_automatic = false;
  bool but_automatic_upgrades = false;
  bool acquire_by_hash = false;
  bool no_arch_all_packages = false;  // "No-Support-for-Architecture-all: Packages"
  std::map<std::string, ReleaseEntry> sha256;  // path relative to dists/SUITE/

  // apt's default pin priority for this archive.
  int pin_priority() const;
};

// Parses Release text (already verified). `what` names it in errors.
Result<Release> parse_release(std::string_view text, std::string_view what);

// RFC 2822 dates as apt accepts them in Release files ("Sat, 10 Jun 2023
// 09:21:43 UTC"); only UTC (UTC, GMT, Z, +0000) is allowed.
Result<std::int64_t> parse_release_date(std::string_view text);

struct ReleaseChecks {
  std::string suite;                     // as configured in sources
  std::int64_t now = 0;
  bool check_valid_until = true;
  std::int64_t max_future_seconds = 10;  // apt's Max-FutureTime
  std::vector<std::string> components;   // must be listed by the Release
  std::vector<std::string> architectures;
};

// apt's acceptance rules: Date present and not in the future, Valid-Until
// not passed (unless disabled), Suite or Codename equal to the configured
// suite, requested components and architectures listed.
Result<void> check_release(const Release& release, const ReleaseChecks& checks, std::string_view what);

}  // namespace strata::layer
