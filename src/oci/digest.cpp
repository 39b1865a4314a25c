#include "oci/digest.hpp"

#include "util/strings.hpp"

namespace strata::oci {
namespace {

bool is_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }
bool is_lower_hex(char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); }

}  // namespace

Result<Digest> Digest::parse(std::string_view text) {
  auto bad = [&](std::string_view why) {
    return fail(ErrorCode::kInvalidArgument, "invalid digest " + str::quote(text, 80) + ": " + std::string(why));
  };
  if (text.size() > 1024) return bad("too long");
  std::size_t colon = text.find(':');
  if (colon == std::string_view::npos) return bad("expected ALGORITHM:HEX");
  std::string_view alg = text.substr(0, colon);
  std::string_view enc = text.substr(colon + 1);
  // algorithm ::= component (separator component)*, component ::= [a-z0-9]+
  if (alg.empty()) return bad("empty algorithm");
  bool need_component = true;
  for (char c : alg) {
    if (is_lower_alnum(c)) {
      need_component = false;
    } else if (c == '+' || c == '.' || c == '_' || c == '-') {
      if (need_component) return bad("malformed algorithm");
      need_component = true;
    } else {
      return bad("malformed algorithm");
    }
  }
  if (need_component) return bad("malformed algorithm");
  if (enc.empty()) return bad("empty encoded part");
  for (char c : enc) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '=' || c == '_' || c == '-';
    if (!ok) return bad("malformed encoded part");
  }
  auto check_hex = [&](std::size_t len) -> bool {
    if (enc.size() != len) return false;
    for (char c : enc)
      if (!is_lower_hex(c)) return false;
    return true;
  };
  if (alg == "sha256" && !check_hex(64)) return bad("sha256 needs 64 lowercase hex characters");
  if (alg == "sha512" && !check_hex(128)) return bad("sha512 needs 128 lowercase hex characters");
  return Digest(std::string(text), colon);
}

Digest Digest::sha256_of(std::string_view bytes) {
  return from_hex(HashAlgorithm::kSha256, sha256_hex(bytes));
}

Digest Digest::from_hex(HashAlgorithm alg, std::string hex) {
  std::string prefix = alg == HashAlgorithm::kSha256 ? "sha256:" : "sha512:";
  return Digest(prefix + hex, prefix.size() - 1);
}

bool Digest::verifiable() const { return algorithm() == "sha256" || algorithm() == "sha512"; }

HashAlgorithm Digest::hash_algorithm() const {
  return algorithm() == "sha512" ? HashAlgorithm::kSha512 : HashAlgorithm::kSha256;
}

DigestVerifier::DigestVerifier(Digest expected, std::int64_t expected_size)
    : expected_(std::move(expected)),
      expected_size_(expected_size),
      hasher_(expected_.verifiable() ? expected_.hash_algorithm() : HashAlgorithm::kSha256),
      verifiable_(expected_.verifiable()) {}

Result<void> DigestVerifier::update(std::span<const std::byte> data) {
  bytes_ += data.size();
  if (expected_size_ >= 0 && bytes_ > static_cast<std::uint64_t>(expected_size_)) {
    return fail(ErrorCode::kFailedPrecondition,
                "content of " + expected_.str() + " is longer than the expected " +
                    std::to_string(expected_size_) + " bytes");
  }
  hasher_.update(data);
  return {};
}

Result<void> DigestVerifier::verify(std::string_view what) {
  if (expected_size_ >= 0 && bytes_ != static_cast<std::uint64_t>(expected_size_)) {
    return fail(ErrorCode::kFailedPrecondition,
                std::string(what) + ": size mismatch: expected " + std::to_string(expected_size_) +
                    " bytes, got " + std::to_string(bytes_));
  }
  if (!verifiable_) {
    return fail(ErrorCode::kUnsupported, std::string(what) + ": cannot verify digest algorithm " +
                                             std::string(expected_.algorithm()));
  }
  std::string got = hasher_.finish_hex();
  if (got != expected_.hex()) {
    return fail(ErrorCode::kFailedPrecondition,
                std::string(what) + ": digest mismatch: expected " + expected_.str() + ", got " +
                    std::string(expected_.algorithm()) + ":" + got);
  }
  return {};
}

}  // namespace strata::oci
