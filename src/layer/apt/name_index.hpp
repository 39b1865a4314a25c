// A parsed Packages index laid out to be read in place: the packages'
// encodings (layer/debian/package_encoding.hpp) with a sorted table of
// names, so resolution decodes only the packages it reaches instead of the
// whole archive. Cached per index content at
// $STRATA_HOME/indexes/byname/<sha256 of the uncompressed index> and mapped
// (util/mapped_file.hpp), so opening it costs a structural check, not a read.
//
// Format (little-endian, version kNameIndexFormat): "STRATANX", u32 format,
// u32 0, the index's SHA256 in hex (64 bytes), u64 record count R, key count
// K, posting count P, string bytes S, body bytes B; then R+1 u64 record
// offsets into the body, R u32 key ids (each record's name), K keys of
// eight u32 (name offset and length in the strings; first posting and count
// of the records named so, of those providing it, of those with Conflicts or
// Breaks on it), P u32 record numbers, the S bytes of the key names (sorted
// bytewise, unique), the B bytes of the records in index order.
// Only an index verified against a signed Release is written (atomically);
// an entry whose header, sizes, offsets, key order or postings do not check
// is ignored and rewritten. A record is decoded with bounds checks when read.
// Thread-safe once open.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "layer/debian/package.hpp"
#include "util/error.hpp"

namespace strata::layer {

// Bump whenever the layout here, or the package encoding, changes.
inline constexpr std::uint32_t kNameIndexFormat = 1;

class NameIndex {
 public:
  // Record numbers, in index order.
  class Postings {
   public:
    Postings() = default;
    Postings(const char* p, std::uint32_t n) : p_(p), n_(n) {}
    std::uint32_t size() const { return n_; }
    std::uint32_t operator[](std::uint32_t i) const;

   private:
    const char* p_ = nullptr;
    std::uint32_t n_ = 0;
  };

  // Checks `bytes` (kept alive by `owner`) as an index of the Packages file
  // `sha256`; fails naming `origin` when it is not a complete, current one.
  static Result<std::shared_ptr<const NameIndex>> open(std::shared_ptr<const void> owner, std::string_view bytes,
                                                       std::string_view sha256, std::string origin);
  // An index of `packages` (of the Packages file `sha256`) held in memory,
  // for callers that have parsed them.
  static std::shared_ptr<const NameIndex> of(const std::vector<Package>& packages, std::string origin = "packages",
                                             std::string_view sha256 = "");

  std::size_t size() const { return records_; }
  Postings named(std::string_view name) const;
  Postings providing(std::string_view name) const;
  Postings negating(std::string_view name) const;  // Conflicts or Breaks on `name`
  // The names of real packages (those with records) that start with `prefix`, sorted.
  std::vector<std::string_view> names_with_prefix(std::string_view prefix) const;
  std::string_view record_name(std::uint32_t record) const;
  // REQUIRES: record < size().
  Result<Package> package(std::uint32_t record) const;
  // Every package, in index order.
  Result<std::vector<Package>> packages() const;
  const std::string& origin() const { return origin_; }
  // The encoded form (what the cache file holds).
  std::string_view bytes() const { return bytes_; }

 private:
  NameIndex() = default;
  std::string_view key_name(std::uint32_t key) const;
  // The first key not sorting before `name` (keys_ when none).
  std::uint32_t first_key_from(std::string_view name) const;
  Postings postings(std::string_view name, int list) const;

  std::shared_ptr<const void> owner_;
  std::string origin_;
  std::size_t records_ = 0, keys_ = 0, postings_count_ = 0;
  const char* offsets_ = nullptr;  // u64[records + 1]
  const char* names_ = nullptr;    // u32[records]
  const char* keytab_ = nullptr;   // u32[8 * keys]
  const char* posts_ = nullptr;    // u32[postings]
  std::string_view bytes_, strings_, body_;
};

std::string encode_name_index(const std::vector<Package>& packages, std::string_view sha256);

std::filesystem::path name_index_path(const std::filesystem::path& indexes_dir, std::string_view sha256);
// nullptr when there is no usable entry (absent, stale format, damaged).
std::shared_ptr<const NameIndex> open_name_index(const std::filesystem::path& indexes_dir, std::string_view sha256);
// Writes `index` (of the Packages file `sha256`) to the cache.
Result<void> store_name_index(const std::filesystem::path& indexes_dir, std::string_view sha256,
                              const NameIndex& index);

}  // namespace strata::layer
