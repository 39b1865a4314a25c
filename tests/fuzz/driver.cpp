// A standalone driver for strata's fuzz targets (the libFuzzer entry point
// LLVMFuzzerTestOneInput), built with g++ and the sanitizers.
//
// Why not libFuzzer: on Debian 12, clang 14-16 cannot compile libstdc++ 12's
// <expected> (it needs __cpp_concepts >= 202002), and AFL++'s gcc plugin
// refuses Debian's gcc 12. The same targets build with -fsanitize=fuzzer on a
// newer clang (STRATA_LIBFUZZER=ON) for coverage-guided runs.
//
// This driver replays every corpus file (regression inputs), then mutates
// corpus inputs (bit flips, interesting bytes, inserts, deletes, duplicated
// ranges, splices, dictionary tokens) for a bounded time. When a sanitizer
// kills the process, the input that did it is written to crash-<n>.bin first.
//
// Usage: fuzz_TARGET [-max_total_time=SECONDS] [-runs=N] [-seed=N] CORPUS_DIR_OR_FILE...
#include <sanitizer/common_interface_defs.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <exception>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::uint8_t> g_current;

void dump_current() {
  char name[64];
  std::snprintf(name, sizeof name, "crash-%zu.bin", g_current.size());
  if (FILE* f = std::fopen(name, "wb")) {
    std::fwrite(g_current.data(), 1, g_current.size(), f);
    std::fclose(f);
    std::fprintf(stderr, "fuzz: input that crashed written to %s\n", name);
  }
}

std::vector<std::uint8_t> slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

void run_one(const std::vector<std::uint8_t>& input) {
  g_current = input;
  LLVMFuzzerTestOneInput(g_current.data(), g_current.size());
}

const std::vector<std::string> kTokens = {
    "sha256:", "sha512:", ":", "@", "/", "..", "\n", "\n\n", " ", "\t", "{", "}", "[", "]", "\"", ",",
    "\"mediaType\":", "\"digest\":", "\"size\":", "\"manifests\":", "\"layers\":", "\"schemaVersion\":2",
    "Package: ", "Version: ", "Depends: ", "Provides: ", "SHA256:", " | ", " (>= ", ")", ":any", "-----BEGIN",
    "docker://", "oci:", "oci-archive:", "docker-archive:", "localhost:5000/", "ustar", "././@PaxHeader",
    "\xff\xff\xff\xff", "\x00\x00\x00\x00", "18446744073709551615", "-1", "9999999999999999999999"};

std::vector<std::uint8_t> mutate(std::vector<std::uint8_t> in, const std::vector<std::vector<std::uint8_t>>& corpus,
                                 std::mt19937_64& rng) {
  auto pick = [&](std::size_t n) { return n == 0 ? 0 : static_cast<std::size_t>(rng() % n); };
  int steps = 1 + static_cast<int>(rng() % 8);
  for (int s = 0; s < steps; ++s) {
    switch (rng() % 8) {
      case 0:  // flip a bit
        if (!in.empty()) in[pick(in.size())] ^= static_cast<std::uint8_t>(1u << (rng() % 8));
        break;
      case 1: {  // interesting byte
        static const std::uint8_t kBytes[] = {0, 1, 0x7f, 0x80, 0xff, '\n', ' ', '"', '\\', '0', '9'};
        if (!in.empty()) in[pick(in.size())] = kBytes[pick(sizeof kBytes)];
        break;
      }
      case 2: {  // insert random bytes
        std::size_t at = pick(in.size() + 1), n = 1 + pick(16);
        std::vector<std::uint8_t> b(n);
        for (auto& x : b) x = static_cast<std::uint8_t>(rng());
        in.insert(in.begin() + static_cast<std::ptrdiff_t>(at), b.begin(), b.end());
        break;
      }
      case 3:  // delete a range
        if (!in.empty()) {
          std::size_t at = pick(in.size()), n = 1 + pick(std::min<std::size_t>(64, in.size() - at));
          in.erase(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + n));
        }
        break;
      case 4:  // duplicate a range
        if (!in.empty() && in.size() < (1u << 20)) {
          std::size_t at = pick(in.size()), n = 1 + pick(std::min<std::size_t>(256, in.size() - at));
          std::vector<std::uint8_t> b(in.begin() + static_cast<std::ptrdiff_t>(at), in.begin() + static_cast<std::ptrdiff_t>(at + n));
          in.insert(in.begin() + static_cast<std::ptrdiff_t>(pick(in.size() + 1)), b.begin(), b.end());
        }
        break;
      case 5:  // splice with another corpus input
        if (!corpus.empty()) {
          const auto& o = corpus[pick(corpus.size())];
          if (!o.empty()) {
            std::size_t from = pick(o.size());
            in.resize(pick(in.size() + 1));
            in.insert(in.end(), o.begin() + static_cast<std::ptrdiff_t>(from), o.end());
          }
        }
        break;
      case 6: {  // dictionary token
        const auto& t = kTokens[pick(kTokens.size())];
        in.insert(in.begin() + static_cast<std::ptrdiff_t>(pick(in.size() + 1)), t.begin(), t.end());
        break;
      }
      case 7:  // truncate
        if (!in.empty()) in.resize(pick(in.size()));
        break;
    }
  }
  return in;
}

}  // namespace

int main(int argc, char** argv) {
  double max_seconds = 10;
  long long max_runs = -1;
  std::uint64_t seed = 1;
  std::vector<std::vector<std::uint8_t>> corpus;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a.rfind("-max_total_time=", 0) == 0) max_seconds = std::stod(a.substr(16));
    else if (a.rfind("-runs=", 0) == 0) max_runs = std::stoll(a.substr(6));
    else if (a.rfind("-seed=", 0) == 0) seed = std::stoull(a.substr(6));
    else if (std::filesystem::is_directory(a)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::directory_iterator(a))
        if (e.is_regular_file()) files.push_back(e.path());
      std::sort(files.begin(), files.end());
      for (const auto& f : files) corpus.push_back(slurp(f));
    } else if (std::filesystem::is_regular_file(a)) {
      corpus.push_back(slurp(a));
    } else {
      std::fprintf(stderr, "fuzz: no such corpus or option: %s\n", a.c_str());
      return 2;
    }
  }
  __sanitizer_set_death_callback(dump_current);
  // An exception escaping a parser is a bug too (strata returns errors).
  std::set_terminate([] {
    dump_current();
    std::abort();
  });
  for (const auto& c : corpus) run_one(c);  // regressions first
  std::fprintf(stderr, "fuzz: replayed %zu corpus inputs\n", corpus.size());
  if (corpus.empty()) corpus.push_back({});
  std::mt19937_64 rng(seed);
  auto start = std::chrono::steady_clock::now();
  long long runs = 0;
  while (max_runs < 0 || runs < max_runs) {
    if ((runs & 255) == 0 &&
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >= max_seconds)
      break;
    run_one(mutate(corpus[static_cast<std::size_t>(rng() % corpus.size())], corpus, rng));
    ++runs;
  }
  std::fprintf(stderr, "fuzz: %lld mutated inputs, no crash\n", runs);
  return 0;
}
