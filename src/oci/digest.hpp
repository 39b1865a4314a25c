// Content digests ("sha256:<64 hex>", "sha512:<128 hex>") as validated value
// types, and streaming verification. Digests are over exact bytes; nothing is
// canonicalised before hashing.
#pragma once

#include <compare>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "util/error.hpp"
#include "util/sha.hpp"

namespace strata::oci {

class Digest {
 public:
  // Validates the OCI digest grammar. sha256 and sha512 must be lowercase hex
  // of the right length; other algorithms that match the grammar are accepted
  // as opaque (they can be copied but not verified).
  static Result<Digest> parse(std::string_view text);
  static Digest sha256_of(std::string_view bytes);
  static Digest from_hex(HashAlgorithm alg, std::string hex);

  const std::string& str() const { return text_; }
  std::string_view algorithm() const { return std::string_view(text_).substr(0, colon_); }
  std::string_view hex() const { return std::string_view(text_).substr(colon_ + 1); }
  // True for sha256/sha512, whose content strata can verify.
  bool verifiable() const;
  HashAlgorithm hash_algorithm() const;  // REQUIRES: verifiable()

  auto operator<=>(const Digest& o) const { return text_ <=> o.text_; }
  bool operator==(const Digest& o) const { return text_ == o.text_; }

 private:
  Digest(std::string text, std::size_t colon) : text_(std::move(text)), colon_(colon) {}
  std::string text_;
  std::size_t colon_ = 0;
};

// Hashes bytes as they flow and checks size and digest at the end, so a blob
// is verified in constant memory. Not thread-safe.
class DigestVerifier {
 public:
  DigestVerifier(Digest expected, std::int64_t expected_size);  // size < 0: unknown
  // Fails as soon as more bytes than expected arrive.
  Result<void> update(std::span<const std::byte> data);
  // Checks size, then digest. `what` names the content in the error message.
  Result<void> verify(std::string_view what);
  std::uint64_t bytes() const { return bytes_; }
  const Digest& expected() const { return expected_; }
  std::int64_t expected_size() const { return expected_size_; }

 private:
  Digest expected_;
  std::int64_t expected_size_;
  std::uint64_t bytes_ = 0;
  Hasher hasher_;
  bool verifiable_;
};

}  // namespace strata::oci

template <>
struct std::hash<strata::oci::Digest> {
  std::size_t operator()(const strata::oci::Digest& d) const noexcept {
    return std::hash<std::string>{}(d.str());
  }
};
