// Fuzz target: the hostile-input-safe tar reader (plain, gzip, zstd, xz
// input is auto-detected), reading every entry and its content.
#include <cstdint>
#include <cstring>
#include <string>

#include "oci/blob_io.hpp"
#include "oci/tar_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::size_t pos = 0;
  auto pull = [&](std::span<std::byte> buf) -> strata::Result<std::size_t> {
    std::size_t n = std::min(buf.size(), size - pos);
    std::memcpy(buf.data(), data + pos, n);
    pos += n;
    return n;
  };
  strata::oci::ReadLimits limits;
  limits.max_uncompressed_bytes = 64 << 20;  // keep each run small
  limits.max_entries = 10000;
  auto reader = strata::oci::TarReader::open(pull, limits, "fuzz");
  if (!reader) return 0;
  for (int i = 0; i < 20000; ++i) {
    auto e = (*reader)->next();
    if (!e || !*e) break;
    auto content = (*reader)->read_data_string(1 << 20);
    (void)content;
  }
  return 0;
}
