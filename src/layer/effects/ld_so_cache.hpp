// /etc/ld.so.cache in the format glibc's ldconfig writes since 2.32 (magic
// "glibc-ld.so.cache" version "1.1", no old-format prefix): a 48-byte header,
// 24-byte entries sorted the way the dynamic loader's binary search expects
// (descending by _dl_cache_libcmp, which compares digit runs numerically),
// then the string table (each key is a suffix of its value string), then a
// 4-byte aligned extension block naming the generator. Little-endian hosts
// only write little-endian caches, as ldconfig does. Pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::layer {

struct LdCacheEntry {
  std::string soname;   // "libz.so.1"
  std::string path;     // "/lib/x86_64-linux-gnu/libz.so.1" (ends in "/" + soname)
  std::int32_t flags = 0;
  std::uint64_t hwcap = 0;
  bool operator==(const LdCacheEntry&) const = default;
};

// glibc's _dl_cache_libcmp: <0, 0, >0.
int dl_cache_libcmp(std::string_view a, std::string_view b);

// The cache bytes; entries are sorted (equal keys keep the order given:
// directory precedence) and exact repeats dropped. The same soname found in
// two directories is cached twice, as ldconfig does.
std::string write_ld_so_cache(std::vector<LdCacheEntry> entries, std::string_view generator = "strata");

// Reads a new-format cache (e.g. the base image's). `what` names it in errors.
Result<std::vector<LdCacheEntry>> parse_ld_so_cache(std::string_view bytes, std::string_view what);

}  // namespace strata::layer
