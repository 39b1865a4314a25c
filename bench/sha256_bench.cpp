// SHA-256 throughput of strata's streaming Hasher (the one every digest goes
// through), fed in 1 MiB chunks as blob transfers feed it, for comparison with
// `openssl speed -evp sha256 -bytes 1048576` (bench/copy.sh prints the ratio).
//
// usage: strata_sha256_bench [MIB_PER_PASS=256] [PASSES=5]
// Prints one line per pass and a final "median_mb_s=N" (MB = 10^6 bytes, as
// openssl speed reports).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "util/sha.hpp"

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 256;
  const int passes = argc > 2 ? std::atoi(argv[2]) : 5;
  if (mib == 0 || passes <= 0 || passes > 100) {
    std::fprintf(stderr, "usage: strata_sha256_bench [MIB_PER_PASS] [PASSES<=100]\n");
    return 2;
  }
  constexpr std::size_t kChunk = 1 << 20;
  std::vector<std::byte> buffer(mib * kChunk);
  std::mt19937_64 rng(42);
  for (std::size_t i = 0; i + 8 <= buffer.size(); i += 8) {
    auto v = rng();
    for (int b = 0; b < 8; ++b) buffer[i + b] = static_cast<std::byte>(v >> (8 * b));
  }
  std::vector<double> rates;
  for (int p = 0; p < passes; ++p) {
    auto t0 = std::chrono::steady_clock::now();
    strata::Hasher h(strata::HashAlgorithm::kSha256);
    for (std::size_t off = 0; off < buffer.size(); off += kChunk)
      h.update(std::span<const std::byte>(buffer.data() + off, std::min(kChunk, buffer.size() - off)));
    auto hex = h.finish_hex();
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double mb_s = static_cast<double>(buffer.size()) / 1e6 / secs;
    rates.push_back(mb_s);
    std::printf("pass %d: %zu MiB in %.3f s = %.1f MB/s (%s)\n", p + 1, mib, secs, mb_s, hex.substr(0, 12).c_str());
  }
  std::sort(rates.begin(), rates.end());
  std::printf("median_mb_s=%.1f\n", rates[rates.size() / 2]);
  return 0;
}
