#include "util/sha.hpp"

#include <openssl/evp.h>

#include <stdexcept>

namespace strata {

struct Hasher::Ctx {
  EVP_MD_CTX* md = nullptr;
  ~Ctx() { EVP_MD_CTX_free(md); }
};

namespace {
// Fetched once: EVP_sha256() makes OpenSSL 3 look the implementation up again
// on every init, which shows on small blobs.
const EVP_MD* fetched(HashAlgorithm alg) {
  static EVP_MD* sha256 = EVP_MD_fetch(nullptr, "SHA256", nullptr);
  static EVP_MD* sha512 = EVP_MD_fetch(nullptr, "SHA512", nullptr);
  const EVP_MD* md = alg == HashAlgorithm::kSha256 ? sha256 : sha512;
  return md ? md : (alg == HashAlgorithm::kSha256 ? EVP_sha256() : EVP_sha512());
}
}  // namespace

Hasher::Hasher(HashAlgorithm alg) : alg_(alg), ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  const EVP_MD* md = fetched(alg);
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, md, nullptr) != 1) {
    throw std::runtime_error("OpenSSL: cannot initialise digest");
  }
}
Hasher::Hasher(Hasher&&) noexcept = default;
Hasher& Hasher::operator=(Hasher&&) noexcept = default;
Hasher::~Hasher() = default;

void Hasher::update(std::span<const std::byte> data) {
  if (!data.empty()) EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}
void Hasher::update(std::string_view data) {
  if (!data.empty()) EVP_DigestUpdate(ctx_->md, data.data(), data.size());
}

std::string Hasher::finish_hex() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx_->md, out, &len);
  return to_hex(std::span<const unsigned char>(out, len));
}

std::string to_hex(std::span<const unsigned char> bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  s.resize(bytes.size() * 2);
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    s[2 * i] = kHex[bytes[i] >> 4];
    s[2 * i + 1] = kHex[bytes[i] & 0xf];
  }
  return s;
}

std::string sha256_hex(std::string_view data) {
  Hasher h;
  h.update(data);
  return h.finish_hex();
}

}  // namespace strata
