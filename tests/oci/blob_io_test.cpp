// The sinks every store and builder writes through: strings and files.
#include "oci/blob_io.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"
#include "util/fs.hpp"

namespace strata::oci {
namespace {

TEST(StringSink, CollectsUpToItsLimitAndSaysWhenItOverflowed) {
  StringSink own(8);
  ASSERT_TRUE(own.write(as_bytes("12345")));
  EXPECT_FALSE(own.overflowed());
  auto over = own.write(as_bytes("6789"));
  ASSERT_FALSE(over);
  EXPECT_TRUE(own.overflowed());
  EXPECT_EQ(own.str(), "12345");  // nothing of a refused write is kept
}

TEST(StringSink, AppendsToAStringItDoesNotOwn) {
  std::string content = "head:";
  {
    StringSink piece(content, 3);  // the limit counts what this sink appends
    ASSERT_TRUE(piece.write(as_bytes("abc")));
    EXPECT_FALSE(piece.write(as_bytes("d")));
    EXPECT_EQ(&piece.str(), &content);
  }
  EXPECT_EQ(content, "head:abc");
}

TEST(FileSink, TruncatesOrAppendsAndCountsWhatItWrote) {
  testing::TempDir dir;
  auto path = dir / "f";
  ASSERT_TRUE(fs::write_file_atomic(path, "old content"));
  {
    auto sink = FileSink::open(path);
    ASSERT_TRUE(sink) << sink.error().message();
    ASSERT_TRUE(sink->write(as_bytes("new")));
    EXPECT_EQ(sink->written(), 3u);
    ASSERT_TRUE(sink->close());
  }
  EXPECT_EQ(*fs::read_file(path), "new");
  {
    auto sink = FileSink::open(path, FileSink::Mode::kAppend);
    ASSERT_TRUE(sink);
    ASSERT_TRUE(sink->write(as_bytes("er")));
  }  // closed on destruction
  EXPECT_EQ(*fs::read_file(path), "newer");
  auto nowhere = FileSink::open(dir / "missing" / "f");
  ASSERT_FALSE(nowhere);
  EXPECT_NE(nowhere.error().message().find((dir / "missing" / "f").string()), std::string::npos);
}

}  // namespace
}  // namespace strata::oci
