// Whole-buffer decompression of archive indexes (xz, gzip, bzip2, or none):
// gzip through oci::gunzip (every member's CRC-32 and length checked), the
// others through libarchive's raw format reader. Bounded: refuses output larger
// than `max_size` (a decompression bomb). Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::layer {

// `what` names the input in errors. Plain (uncompressed) data passes through.
Result<std::string> decompress_index(std::string_view data, std::string_view what,
                                     std::uint64_t max_size = UINT64_C(1) << 30);

}  // namespace strata::layer
