#include "layer/cache/shard.hpp"

#include <charconv>

#include "util/strings.hpp"

namespace strata::layer {

bool Shard::owns(std::string_view key_hex) const {
  std::string_view head = key_hex.substr(0, 8);
  std::uint32_t value = 0;
  auto [end, ec] = std::from_chars(head.data(), head.data() + head.size(), value, 16);
  return ec == std::errc() && end == head.data() + head.size() && value % count == index;
}

Result<Shard> parse_shard(std::string_view text) {
  auto slash = text.find('/');
  auto k = str::parse_u64(text.substr(0, slash));
  auto n = slash == std::string_view::npos ? std::nullopt : str::parse_u64(text.substr(slash + 1));
  if (!k || !n || *n == 0 || *n > 10000 || *k >= *n) {
    return fail(ErrorCode::kInvalidArgument,
                "shard " + std::string(text) + ": expected K/N with 0 <= K < N <= 10000 (e.g. 0/4)");
  }
  return Shard{static_cast<std::uint32_t>(*k), static_cast<std::uint32_t>(*n)};
}

Result<std::optional<Shard>> shard_from_env(const char* index, const char* count) {
  const bool has_index = index && *index, has_count = count && *count;
  if (!has_index && !has_count) return std::optional<Shard>{};
  if (has_index != has_count) {
    return fail(ErrorCode::kInvalidArgument,
                "JOB_COMPLETION_INDEX and JOB_COMPLETIONS must be set together (or pass --shard K/N)");
  }
  auto shard = parse_shard(std::string(index) + "/" + count);
  if (!shard) {
    return fail(ErrorCode::kInvalidArgument, "JOB_COMPLETION_INDEX=" + std::string(index) +
                                                 " JOB_COMPLETIONS=" + count + ": not a shard (pass --shard K/N)");
  }
  return std::optional<Shard>{*shard};
}

}  // namespace strata::layer
