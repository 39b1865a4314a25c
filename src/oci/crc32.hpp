// CRC-32 (the IEEE polynomial gzip uses) through libdeflate, at memory
// speed (about 14 GB/s here, against 1.8 GB/s for SHA-256). The integrity
// check of cached fragments: their recorded values sit next to them in the
// cache, so the check is against damage (truncation, bit rot, a stray
// edit), not against someone who can rewrite the cache, and a cryptographic
// hash would buy nothing for its cost on every warm build.
#pragma once

#include <libdeflate.h>

#include <cstdint>
#include <string_view>

#include "oci/blob_io.hpp"

namespace strata::oci {

inline std::uint32_t crc32_update(std::uint32_t crc, std::string_view data) {
  return libdeflate_crc32(crc, data.data(), data.size());
}

// Passes bytes on to `next`, keeping the CRC-32 of everything passed.
class Crc32Sink final : public oci::ByteSink {
 public:
  explicit Crc32Sink(oci::ByteSink& next) : next_(next) {}
  Result<void> write(std::span<const std::byte> data) override {
    crc_ = libdeflate_crc32(crc_, data.data(), data.size());
    return next_.write(data);
  }
  std::uint32_t crc() const { return crc_; }

 private:
  oci::ByteSink& next_;
  std::uint32_t crc_ = 0;
};

}  // namespace strata::oci
