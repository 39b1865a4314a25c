// String helpers that std lacks in C++23 (no <format> in g++ 12).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace strata::str {

std::string_view trim(std::string_view s);
// Trimmed, then one pair of matching quotes ('…' or "…") around it removed.
std::string unquote(std::string_view s);
// `s` without any leading (and, with `trailing`, trailing) `c`: "/usr/lib/" → "usr/lib".
std::string_view strip(std::string_view s, char c, bool trailing = false);
std::vector<std::string_view> split(std::string_view s, char sep);
// Splits on runs of ASCII whitespace; no empty fields.
std::vector<std::string_view> split_ws(std::string_view s);
std::string lower(std::string_view s);
std::string join(const std::vector<std::string>& parts, std::string_view sep);
// Parses a non-negative decimal integer that fits in uint64, rejecting signs,
// spaces and trailing junk.
std::optional<std::uint64_t> parse_u64(std::string_view s);
// Standard base64 (RFC 4648 §4, padding optional); nullopt on any other character.
std::optional<std::string> base64_decode(std::string_view s);
// Human-readable byte count: "12.3 MiB".
std::string human_bytes(std::uint64_t n);
// Parses "512M", "2GiB", "1024" into bytes.
std::optional<std::uint64_t> parse_size(std::string_view s);
// Parses "30s", "15m", "12h", "7d", "2w" into seconds.
std::optional<std::int64_t> parse_duration(std::string_view s);
// RFC 3339 UTC ("2024-05-01T12:00:00Z") for seconds since the epoch.
std::string rfc3339(std::int64_t epoch_seconds);
// Quotes a string for an error message if it has spaces or control characters,
// and cuts it to a readable length.
std::string quote(std::string_view s, std::size_t max = 200);
// Levenshtein distance: the fewest single-character insertions, deletions and
// substitutions that turn `a` into `b` ("did you mean" suggestions).
std::size_t edit_distance(std::string_view a, std::string_view b);

}  // namespace strata::str
