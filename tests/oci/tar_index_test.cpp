// Indexing an uncompressed tar: member offsets under ustar, pax and GNU long
// names, reading a member from an offset, and refusing damaged headers.
#include "oci/tar_index.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

#include "support/temp_dir.hpp"

namespace strata::oci {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(TarIndexTest, FindsEveryMemberUnderEachFormat) {
  testing::TempDir dir;
  const std::string long_name = "blobs/sha256/" + std::string(120, 'a');
  std::filesystem::create_directories(dir / "w/blobs/sha256");
  std::ofstream(dir / "w/oci-layout") << "{\"imageLayoutVersion\":\"1.0.0\"}";
  std::ofstream(dir / "w" / long_name) << std::string(70000, 'x') << "end";
  for (const std::string format : {"pax", "gnu", "ustar"}) {
    auto tar = dir / (format + ".tar");
    // ustar cannot hold a 133-byte name: it gets a short one.
    std::string files = format == "ustar" ? "oci-layout" : "oci-layout " + long_name;
    std::string cmd = "tar -C " + (dir / "w").string() + " --format=" + format + " -cf " + tar.string() + " " + files;
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    auto index = index_tar(tar, "oci-archive:" + tar.string());
    ASSERT_TRUE(index) << index.error().message();
    ASSERT_TRUE(index->members.contains("oci-layout")) << format;
    int fd = ::open(tar.c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    StringSink layout;
    ASSERT_TRUE(read_tar_member(fd, index->members.at("oci-layout"), 0, layout, "t"));
    EXPECT_EQ(layout.str(), slurp(dir / "w/oci-layout"));
    if (format != "ustar") {
      ASSERT_TRUE(index->members.contains(long_name)) << format;
      StringSink tail;
      ASSERT_TRUE(read_tar_member(fd, index->members.at(long_name), 70000, tail, "t"));
      EXPECT_EQ(tail.str(), "end") << format;
    }
    ::close(fd);
    EXPECT_FALSE(*tar_is_compressed(tar));
  }
}

TEST(TarIndexTest, RefusesDamageAndKnowsCompression) {
  testing::TempDir dir;
  std::filesystem::create_directories(dir / "w");
  std::ofstream(dir / "w/f") << std::string(5000, 'y');
  auto tar = dir / "t.tar";
  ASSERT_EQ(std::system(("tar -C " + (dir / "w").string() + " -cf " + tar.string() + " f").c_str()), 0);
  std::string bytes = slurp(tar);
  {
    auto bad = bytes;
    bad[10] ^= 1;  // inside the first header's name
    std::ofstream(dir / "bad.tar", std::ios::binary) << bad;
    auto r = index_tar(dir / "bad.tar", "oci-archive:bad.tar");
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("oci-archive:bad.tar"), std::string::npos) << r.error().message();
  }
  {
    std::ofstream(dir / "short.tar", std::ios::binary) << bytes.substr(0, 1024);
    EXPECT_FALSE(index_tar(dir / "short.tar", "short"));
  }
  ASSERT_EQ(std::system(("gzip -k " + tar.string()).c_str()), 0);
  EXPECT_TRUE(*tar_is_compressed(dir / "t.tar.gz"));
}

}  // namespace
}  // namespace strata::oci
