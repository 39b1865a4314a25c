#include "util/fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>

#include "support/temp_dir.hpp"

namespace strata::fs {
namespace {

class FsTest : public ::testing::Test {
 protected:
  strata::testing::TempDir tmp_;
  const std::filesystem::path& dir_ = tmp_.path();
};

TEST_F(FsTest, AtomicWriteReplacesContentAndLeavesNoTempFiles) {
  auto p = dir_ / "a" / "file.json";
  ASSERT_TRUE(write_file_atomic(p, "one"));
  ASSERT_TRUE(write_file_atomic(p, "two"));
  EXPECT_EQ(*read_file(p), "two");
  int n = 0;
  for (auto& e : std::filesystem::directory_iterator(p.parent_path())) { (void)e; ++n; }
  EXPECT_EQ(n, 1);
}

TEST_F(FsTest, UncommittedAtomicFileLeavesNothing) {
  auto p = dir_ / "x";
  {
    auto f = AtomicFile::create(p);
    ASSERT_TRUE(f);
    ASSERT_TRUE(f->write(std::string_view("partial")));
  }
  EXPECT_FALSE(std::filesystem::exists(p));
  EXPECT_TRUE(std::filesystem::is_empty(dir_));
}

TEST_F(FsTest, AtomicFileModeIgnoresUmask) {
  auto old = ::umask(0077);
  auto p = dir_ / "m";
  ASSERT_TRUE(write_file_atomic(p, "x", 0644));
  ::umask(old);
  struct stat st{};
  ASSERT_EQ(::stat(p.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0644u);
}

TEST_F(FsTest, ReadFileRefusesOversizedAndNamesFile) {
  auto p = dir_ / "big";
  ASSERT_TRUE(write_file_atomic(p, std::string(100, 'x')));
  auto r = read_file(p, 10);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find(p.string()), std::string::npos);
  auto missing = read_file(dir_ / "nope");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(ErrorCode::kNotFound));
}

TEST_F(FsTest, FileLockIsReentrantAcrossInstancesSequentially) {
  auto l = dir_ / "lock";
  { auto a = FileLock::acquire(l); ASSERT_TRUE(a); }
  { auto b = FileLock::acquire(l); ASSERT_TRUE(b); }
}

}  // namespace
}  // namespace strata::fs
