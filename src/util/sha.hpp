// Streaming SHA-256 / SHA-512 on OpenSSL EVP. One Hasher per stream; not
// thread-safe. Used for every digest strata computes or verifies.
#pragma once

#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace strata {

enum class HashAlgorithm { kSha256, kSha512 };

class Hasher {
 public:
  explicit Hasher(HashAlgorithm alg = HashAlgorithm::kSha256);
  Hasher(Hasher&&) noexcept;
  Hasher& operator=(Hasher&&) noexcept;
  ~Hasher();

  void update(std::span<const std::byte> data);
  void update(std::string_view data);
  // Lowercase hex of the digest. The hasher may not be updated afterwards.
  std::string finish_hex();
  HashAlgorithm algorithm() const { return alg_; }

 private:
  HashAlgorithm alg_;
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

std::string sha256_hex(std::string_view data);
std::string to_hex(std::span<const unsigned char> bytes);

}  // namespace strata
