// Archive indexes (Packages.gz, …) decompress to their bytes; a gzip member
// whose trailer does not match what it decompressed to is refused, as gzip -t
// and apt refuse it.
#include "layer/apt/decompress.hpp"

#include <gtest/gtest.h>

#include <zlib.h>

namespace strata::layer {
namespace {

// A gzip member of stored (level 0) deflate blocks, so one byte of content
// can be changed and only the trailer's CRC-32 tells.
std::string stored_gzip(const std::string& data) {
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 0, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string out(deflateBound(&z, data.size()) + 64, '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  z.avail_in = static_cast<uInt>(data.size());
  z.next_out = reinterpret_cast<Bytef*>(out.data());
  z.avail_out = static_cast<uInt>(out.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  out.resize(z.total_out);
  deflateEnd(&z);
  return out;
}

TEST(DecompressIndex, GzipTrailersAreChecked) {
  std::string text;
  for (int i = 0; i < 2000; ++i) text += "Package: p" + std::to_string(i) + "\nVersion: 1\n\n";
  std::string gz = stored_gzip(text);
  auto ok = decompress_index(gz, "Packages.gz");
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(*ok, text);
  // Two members concatenated are one stream.
  auto two = decompress_index(stored_gzip(text.substr(0, 100)) + stored_gzip(text.substr(100)), "Packages.gz");
  ASSERT_TRUE(two) << two.error().message();
  EXPECT_EQ(*two, text);

  std::string flipped = gz;
  auto at = flipped.find("Package: p1234");
  ASSERT_NE(at, std::string::npos);
  flipped[at + 10] = '9';
  auto bad = decompress_index(flipped, "Packages.gz");
  ASSERT_FALSE(bad) << "decompressed a member with a wrong CRC-32";
  EXPECT_NE(bad.error().message().find("Packages.gz"), std::string::npos) << bad.error().message();
  EXPECT_NE(bad.error().message().find("CRC"), std::string::npos) << bad.error().message();

  std::string truncated = gz.substr(0, gz.size() - 3);
  EXPECT_FALSE(decompress_index(truncated, "Packages.gz"));
  // The size bound holds for gzip too.
  auto big = decompress_index(gz, "Packages.gz", 1000);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("more than 1000"), std::string::npos) << big.error().message();
}

}  // namespace
}  // namespace strata::layer
