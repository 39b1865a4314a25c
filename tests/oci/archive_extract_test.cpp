// Unpacking a compressed image archive into TMPDIR: the decompression-bomb
// guard (ArchiveStore::extract reads through TarReader's budget).
#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>

#include "oci/archive_store.hpp"
#include "support/gzip_bomb.hpp"
#include "support/scoped_env_var.hpp"
#include "support/temp_dir.hpp"

namespace strata::oci {
namespace {

bool empty_dir(const std::filesystem::path& dir) { return std::filesystem::is_empty(dir); }

TEST(ArchiveExtract, RefusesAGzipBombAndLeavesNothingInTmpdir) {
  testing::TempDir dir;
  const auto bomb = dir / "bomb.tar.gz";
  // 256 MiB of zeros in about 256 KiB: refused once past 64 MiB of output.
  testing::write_gzip_bomb(bomb, std::uint64_t{256} << 20);
  ASSERT_LT(std::filesystem::file_size(bomb), std::uint64_t{1} << 20);
  const auto tmp = dir / "tmp";
  std::filesystem::create_directories(tmp);
  testing::ScopedEnvVar env("TMPDIR", tmp.string());
  for (auto format : {ArchiveFormat::kOci, ArchiveFormat::kDocker}) {
    auto opened = ArchiveStore::open(bomb, format, ArchiveMode::kRead);
    ASSERT_FALSE(opened) << "a gzip bomb was unpacked and opened";
    const std::string& m = opened.error().message();
    EXPECT_NE(m.find(std::string(format == ArchiveFormat::kOci ? "oci-archive:" : "docker-archive:") + bomb.string() + ": expands "),
              std::string::npos)
        << m;
    EXPECT_NE(m.find("refusing a possible decompression bomb"), std::string::npos) << m;
    EXPECT_EQ(m.find(tmp.string()), std::string::npos) << "names the staging directory: " << m;
    EXPECT_TRUE(empty_dir(tmp)) << "left in TMPDIR: " << std::filesystem::directory_iterator(tmp)->path();
  }
}

TEST(ArchiveExtract, AModestCompressedArchiveStillOpens) {
  // Zeros compress as a bomb does; below the 64 MiB floor the ratio is not judged.
  testing::TempDir dir;
  const auto small = dir / "small.tar.gz";
  testing::write_gzip_bomb(small, std::uint64_t{8} << 20);
  const auto tmp = dir / "tmp";
  std::filesystem::create_directories(tmp);
  testing::ScopedEnvVar env("TMPDIR", tmp.string());
  auto opened = ArchiveStore::open(small, ArchiveFormat::kOci, ArchiveMode::kRead);
  ASSERT_TRUE(opened) << opened.error().message();
  auto tags = (*opened)->list_tags();
  ASSERT_TRUE(tags);
  EXPECT_TRUE(tags->empty());
  opened->reset();
  EXPECT_TRUE(empty_dir(tmp));
}

}  // namespace
}  // namespace strata::oci
