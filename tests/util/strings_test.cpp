#include "util/strings.hpp"

#include <gtest/gtest.h>

#include "util/sha.hpp"

namespace strata::str {
namespace {

TEST(Strings, ParseU64RejectsJunk) {
  EXPECT_EQ(parse_u64("0"), 0u);
  EXPECT_EQ(parse_u64("18446744073709551615"), UINT64_MAX);
  EXPECT_FALSE(parse_u64("18446744073709551616"));
  EXPECT_FALSE(parse_u64("-1"));
  EXPECT_FALSE(parse_u64("1 "));
  EXPECT_FALSE(parse_u64(""));
  EXPECT_FALSE(parse_u64("+1"));
}

TEST(Strings, SizesAndDurations) {
  EXPECT_EQ(parse_size("512M"), 512ull << 20);
  EXPECT_EQ(parse_size("2GiB"), 2ull << 30);
  EXPECT_EQ(parse_size("100"), 100u);
  EXPECT_FALSE(parse_size("12Q"));
  EXPECT_EQ(parse_duration("7d"), 7 * 86400);
  EXPECT_EQ(parse_duration("90"), 90);
  EXPECT_FALSE(parse_duration("x"));
}

TEST(Strings, Rfc3339IsUtc) {
  EXPECT_EQ(rfc3339(0), "1970-01-01T00:00:00Z");
  EXPECT_EQ(rfc3339(1700000000), "2023-11-14T22:13:20Z");
}

TEST(Strings, QuoteEscapesControlAndCuts) {
  EXPECT_EQ(quote("a\nb"), "\"a\\x0ab\"");
  EXPECT_EQ(quote("abcdef", 3), "\"abc...\"");
}

TEST(Strings, EditDistanceCountsSingleCharacterEdits) {
  EXPECT_EQ(edit_distance("copy", "copy"), 0u);
  EXPECT_EQ(edit_distance("copyy", "copy"), 1u);   // one insertion
  EXPECT_EQ(edit_distance("cpoy", "copy"), 2u);    // a swap is two substitutions
  EXPECT_EQ(edit_distance("", "tags"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("inspect", "import"), edit_distance("import", "inspect"));
}

TEST(Sha, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  Hasher h(HashAlgorithm::kSha512);
  h.update(std::string_view("abc"));
  EXPECT_EQ(h.finish_hex().substr(0, 16), "ddaf35a193617aba");
}

}  // namespace
}  // namespace strata::str
