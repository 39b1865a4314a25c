#include "oci/compress.hpp"

#include <gtest/gtest.h>

#include <random>

#include "support/shell.hpp"
#include "util/sha.hpp"

namespace strata::oci {
namespace {

using testing::TempDir;
using testing::shell_quote;
using testing::shell;

// Compressible but not trivial: words from a small vocabulary, seeded.
std::string sample(std::size_t n, unsigned seed) {
  static const char* words[] = {"usr ", "lib ", "share ", "doc ", "\x00\x00\x00\x00", "libc6 ", "debian\n"};
  std::mt19937 rng(seed);
  std::string s;
  s.reserve(n + 16);
  while (s.size() < n) s += words[rng() % 7];
  s.resize(n);
  return s;
}

struct Compressed {
  std::string bytes;
  oci::LayerDigests digests;
};

// Sends `parts` through one sink, ending a member after each part.
Compressed compress(oci::Compression c, const std::vector<std::string>& parts, bool cut_between = true,
                    unsigned jobs = 1, oci::DiffId diff_id = oci::DiffId::kCompute) {
  oci::StringSink out;
  auto sink = oci::CompressingSink::create(c, out, jobs, diff_id);
  EXPECT_TRUE(sink);
  for (const auto& p : parts) {
    // Feed in odd-sized pieces so chunking does not depend on write sizes.
    for (std::size_t off = 0; off < p.size(); off += 777777) {
      auto r = (*sink)->write(oci::as_bytes(std::string_view(p).substr(off, 777777)));
      EXPECT_TRUE(r);
    }
    if (cut_between) {
      EXPECT_TRUE((*sink)->end_member());
    }
  }
  auto d = (*sink)->finish();
  EXPECT_TRUE(d) << d.error().message();
  return {out.str(), *d};
}

std::string decode(const TempDir& d, const std::string& bytes, const std::string& test_cmd,
                   const std::string& cat_cmd) {
  auto file = (d / "blob").string();
  testing::write_file(file, bytes);
  auto t = shell(test_cmd + " " + shell_quote(file) + " 2>&1");
  EXPECT_EQ(t.status, 0) << test_cmd << ": " << t.out;
  auto c = shell(cat_cmd + " " + shell_quote(file));
  EXPECT_EQ(c.status, 0);
  return c.out;
}

TEST(Compress, GzipMembersDecodeWithGzipAndDigestsAreOnePass) {
  std::string a = sample(9 << 20, 1), b = sample(100000, 2);
  auto z = compress(oci::Compression::kGzip, {a, b});
  // Fixed member header: 1f 8b 08, FLG 0, MTIME 0, XFL 0, OS 255.
  ASSERT_GE(z.bytes.size(), 10u);
  EXPECT_EQ(z.bytes.substr(0, 10), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10));
  EXPECT_EQ(z.digests.diff_id, oci::Digest::sha256_of(a + b));
  EXPECT_EQ(z.digests.digest, oci::Digest::sha256_of(z.bytes));
  EXPECT_EQ(z.digests.size, static_cast<std::int64_t>(z.bytes.size()));
  EXPECT_EQ(z.digests.uncompressed_size, a.size() + b.size());
  EXPECT_LT(z.bytes.size(), (a.size() + b.size()) / 3);
  TempDir d;
  EXPECT_EQ(decode(d, z.bytes, "gzip -t", "zcat"), a + b);
}

TEST(Compress, SeparatelyCompressedFragmentsConcatenateToTheSameBytes) {
  std::string a = sample(5 << 20, 3), b = sample(12345, 4), c = sample(300, 5);
  for (oci::Compression comp : {oci::Compression::kGzip, oci::Compression::kZstd}) {
    auto whole = compress(comp, {a, b, c});
    auto fa = compress(comp, {a}), fb = compress(comp, {b}), fc = compress(comp, {c});
    EXPECT_EQ(whole.bytes, fa.bytes + fb.bytes + fc.bytes);
    // Without the cuts the chunk rule alone decides, and the bytes differ.
    auto uncut = compress(comp, {a, b, c}, false);
    EXPECT_NE(whole.bytes, uncut.bytes);
    EXPECT_EQ(whole.digests.diff_id, uncut.digests.diff_id);
  }
}

TEST(Compress, ZstdFramesDecodeWithZstd) {
  std::string a = sample(6 << 20, 6), b = sample(5000, 7);
  auto z = compress(oci::Compression::kZstd, {a, b});
  EXPECT_EQ(z.bytes.substr(0, 4), std::string("\x28\xb5\x2f\xfd", 4));
  EXPECT_EQ(z.digests.diff_id, oci::Digest::sha256_of(a + b));
  EXPECT_EQ(z.digests.digest, oci::Digest::sha256_of(z.bytes));
  TempDir d;
  EXPECT_EQ(decode(d, z.bytes, "zstd -q -t", "zstd -q -dc"), a + b);
}

TEST(Compress, SameInputSameBytes) {
  std::string a = sample(3 << 20, 8);
  for (oci::Compression comp : {oci::Compression::kGzip, oci::Compression::kZstd, oci::Compression::kNone}) {
    auto x = compress(comp, {a}), y = compress(comp, {a});
    EXPECT_EQ(x.digests.digest, y.digests.digest);
    EXPECT_EQ(x.bytes, y.bytes);
  }
}

TEST(Compress, ParallelChunksGiveTheSameBytesForAnyJobs) {
  // Several full chunks, a partial one, cuts inside batches and an empty part.
  std::string a = sample(oci::kCompressionChunk * 5 + 1234, 10), b = sample(oci::kCompressionChunk - 1, 11), c = sample(77, 12);
  for (oci::Compression comp : {oci::Compression::kGzip, oci::Compression::kZstd, oci::Compression::kNone}) {
    for (bool cut : {true, false}) {
      auto one = compress(comp, {a, b, "", c}, cut, 1);
      for (unsigned jobs : {2u, 3u, 8u}) {
        auto many = compress(comp, {a, b, "", c}, cut, jobs);
        EXPECT_EQ(one.bytes, many.bytes) << jobs;
        EXPECT_EQ(one.digests.digest, many.digests.digest);
        EXPECT_EQ(one.digests.diff_id, many.digests.diff_id);
        EXPECT_EQ(one.digests.size, many.digests.size);
      }
    }
  }
  TempDir d;
  EXPECT_EQ(decode(d, compress(oci::Compression::kZstd, {a, c}, true, 3).bytes, "zstd -q -t", "zstd -q -dc"), a + c);
  auto empty = compress(oci::Compression::kGzip, {}, true, 4);
  EXPECT_EQ(empty.bytes, compress(oci::Compression::kGzip, {}, true, 1).bytes);
}

TEST(Compress, NoneIsAPassthroughWhoseDigestIsTheDiffId) {
  std::string a = sample(100000, 9);
  auto z = compress(oci::Compression::kNone, {a});
  EXPECT_EQ(z.bytes, a);
  EXPECT_EQ(z.digests.digest, z.digests.diff_id);
  EXPECT_EQ(z.digests.diff_id, oci::Digest::sha256_of(a));
}

TEST(Compress, SkippingTheDiffIdChangesNoByte) {
  std::string a = sample(300000, 4);
  auto with = compress(oci::Compression::kZstd, {a}, true, 2);
  auto without = compress(oci::Compression::kZstd, {a}, true, 2, oci::DiffId::kSkip);
  EXPECT_EQ(without.bytes, with.bytes);
  EXPECT_EQ(without.digests.digest, with.digests.digest);
  EXPECT_EQ(without.digests.uncompressed_size, a.size());
  EXPECT_FALSE(without.digests.diff_id);
  EXPECT_EQ(with.digests.diff_id, oci::Digest::sha256_of(a));
}

TEST(Compress, EmptyStreamIsStillValid) {
  TempDir d;
  auto g = compress(oci::Compression::kGzip, {});
  EXPECT_EQ(decode(d, g.bytes, "gzip -t", "zcat"), "");
  auto z = compress(oci::Compression::kZstd, {});
  EXPECT_EQ(decode(d, z.bytes, "zstd -q -t", "zstd -q -dc"), "");
  EXPECT_EQ(g.digests.diff_id, oci::Digest::sha256_of(""));
}

TEST(Compress, MediaTypesAndNames) {
  EXPECT_EQ(oci::layer_media_type(oci::Compression::kGzip), oci::media::kOciLayerGzip);
  EXPECT_EQ(oci::layer_media_type(oci::Compression::kZstd), oci::media::kOciLayerZstd);
  EXPECT_EQ(oci::layer_media_type(oci::Compression::kNone), oci::media::kOciLayer);
  EXPECT_EQ(*oci::parse_compression("zstd"), oci::Compression::kZstd);
  EXPECT_FALSE(oci::parse_compression("xz"));
  oci::StringSink out;
  EXPECT_FALSE(oci::CompressingSink::create(oci::Compression::kUnknown, out));
}

}  // namespace
}  // namespace strata::oci
