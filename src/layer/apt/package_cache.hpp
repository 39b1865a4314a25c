// Parsed Packages indexes, cached in a compact binary form next to the
// verified index text: $STRATA_HOME/indexes/parsed/<sha256 of the index>.
// Parsing bookworm main (~95 MB of deb822) costs seconds; decoding this form
// costs a fraction of that, so a verified index is parsed once per content.
//
// Format (little-endian, version kPackageCacheFormat): an 8-byte magic
// "STRATAPK", u32 format version, u32 reserved, the index's SHA256 in hex (64
// bytes), u64 package count, u64 body size; then the body: per package its
// strings (u32 length + bytes) and small integers in a fixed order. The file
// is written atomically and only for an index that verified against a signed
// Release; a header that does not match (magic, version, hash, size) or a
// body that does not decode within its bounds is treated as absent (the
// index is re-parsed and the entry rewritten), never as an error.
// Pure functions plus atomic file I/O; thread-safe.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "layer/debian/package.hpp"
#include "util/error.hpp"

namespace strata::layer {

// Bump whenever Package gains, loses or reinterprets a field: entries of
// another version are ignored and rewritten.
inline constexpr std::uint32_t kPackageCacheFormat = 1;

// The cached form of `packages`, parsed from the index whose SHA256 is `sha256`.
std::string encode_packages(const std::vector<Package>& packages, std::string_view sha256);
// Decodes `bytes`; fails (naming `origin`) unless it is a complete, current
// encoding of the index `sha256`.
Result<std::vector<Package>> decode_packages(std::string_view bytes, std::string_view sha256,
                                             std::string_view origin);

std::filesystem::path package_cache_path(const std::filesystem::path& indexes_dir, std::string_view sha256);
// nullopt when there is no usable entry (absent, stale format, damaged).
std::optional<std::vector<Package>> load_cached_packages(const std::filesystem::path& indexes_dir,
                                                         std::string_view sha256);
Result<void> store_cached_packages(const std::filesystem::path& indexes_dir, std::string_view sha256,
                                   const std::vector<Package>& packages);

}  // namespace strata::layer
