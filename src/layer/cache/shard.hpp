// A deterministic share of the overlay keys, so N pre-warm jobs (a
// Kubernetes Indexed Job, a CI matrix) split one config with no
// coordination: shard K of N owns the keys whose first 8 hex digits are K
// modulo N. A key's shard never depends on the other entries, so adding an
// overlay to the config moves no other key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::layer {

struct Shard {
  std::uint32_t index = 0;  // K, 0-based
  std::uint32_t count = 1;  // N
  bool owns(std::string_view key_hex) const;
};

// "K/N" with 0 <= K < N <= 10000.
Result<Shard> parse_shard(std::string_view text);

// From JOB_COMPLETION_INDEX and JOB_COMPLETIONS (both set, or neither:
// nullopt); values that are not a shard are an error naming the variables.
Result<std::optional<Shard>> shard_from_env(const char* index, const char* count);

}  // namespace strata::layer
