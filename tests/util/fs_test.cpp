#include "util/fs.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <thread>

#include "util/mapped_file.hpp"

#include "support/fault_env.hpp"
#include "support/fifo.hpp"
#include "support/proc_locks.hpp"
#include "support/scoped_env_var.hpp"
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

// The atomic write under every fault at every step: the old content or the
// new, never a mix; no temporary file left; an error naming the file and
// the errno text.
TEST_F(FsTest, AtomicWriteFailsCleanlyAtEveryStep) {
  for (const auto& fault : strata::testing::standard_faults()) {
    auto steps = strata::testing::at_every_step(fault, [&](strata::testing::FaultEnv& env) {
      strata::testing::TempDir t;
      auto p = t / "d" / "file.json";
      {
        ScopedEnv real(posix_env());
        ASSERT_TRUE(write_file_atomic(p, "old"));
      }
      auto r = write_file_atomic(p, std::string(70000, 'n'));
      ScopedEnv real(posix_env());
      if (!env.fired()) {
        ASSERT_TRUE(r) << r.error().message();
      }
      if (!r) {
        EXPECT_TRUE(strata::testing::names_the_fault(r.error().message(), env));
      }
      auto now = *read_file(p);
      EXPECT_TRUE(now == "old" || now == std::string(70000, 'n')) << env.what_fired();
      if (!r && now != "old") {
        EXPECT_EQ(env.fired_path(), p.parent_path()) << "only the directory's fsync follows the rename";
      }
      int n = 0;
      for (auto& e : std::filesystem::directory_iterator(p.parent_path())) { (void)e; ++n; }
      EXPECT_EQ(n, 1) << "a temporary file left after " << env.what_fired();
    });
    EXPECT_GE(steps, fault.err == EXDEV || fault.err == EACCES ? 1u : 4u) << fault.name;
  }
}

// make_dirs and remove_tree go through the Env too, and say which path failed.
TEST_F(FsTest, MakeDirsAndRemoveTreeNameThePathThatFailed) {
  strata::testing::FaultEnv env(strata::testing::standard_faults()[1], 1);  // EIO at the second step
  {
    ScopedEnv faulty(env);
    auto made = make_dirs(dir_ / "a" / "b" / "c");
    ASSERT_FALSE(made);
    EXPECT_TRUE(strata::testing::names_the_fault(made.error().message(), env));
  }
  EXPECT_EQ(env.fired_path(), dir_ / "a" / "b");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "a"));
  ASSERT_TRUE(make_dirs(dir_ / "a" / "b" / "c"));
  ASSERT_TRUE(write_file_atomic(dir_ / "a" / "b" / "c" / "f", "x"));
  ASSERT_TRUE(remove_tree(dir_ / "a"));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "a"));
  EXPECT_TRUE(remove_tree(dir_ / "a"));  // already gone: not an error
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

// "Waiting for another process" is for another process: a thread that waits
// for a lock another thread of this process holds is not told, one that
// waits for another process's is.
TEST_F(FsTest, ALockWaitListenerHearsOfOtherProcessesOnly) {
  auto l = dir_ / "x.lock";
  std::atomic<int> told{0};
  {
    std::optional<FileLock> held;
    {
      auto taken = FileLock::acquire(l);
      ASSERT_TRUE(taken);
      held.emplace(std::move(*taken));
    }
    std::thread t([&] {
      LockWaitListener listener([&](const std::filesystem::path&) { ++told; });
      auto again = FileLock::acquire(l);
      EXPECT_TRUE(again);
    });
    EXPECT_TRUE(strata::testing::wait_for_lock_waiter(l));
    held.reset();  // the holder lets go
    t.join();
  }
  EXPECT_EQ(told.load(), 0) << "the holder was this process";

  // Another process holds it until the listener is told.
  int ready[2], release[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(release), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    ::close(release[1]);
    auto lock = FileLock::acquire(l);
    char c = 'x';
    if (!lock || ::write(ready[1], &c, 1) != 1) ::_exit(1);
    while (::read(release[0], &c, 1) > 0) {
    }
    ::_exit(0);
  }
  ::close(ready[1]);
  ::close(release[0]);
  char c = 0;
  ASSERT_EQ(::read(ready[0], &c, 1), 1);
  {
    LockWaitListener listener([&](const std::filesystem::path&) {
      ++told;
      ::close(release[1]);  // told first: now the other process lets go
    });
    auto mine = FileLock::acquire(l);
    EXPECT_TRUE(mine);
  }
  int status = 0;
  ::waitpid(child, &status, 0);
  ::close(ready[0]);
  EXPECT_EQ(told.load(), 1);
}

TEST_F(FsTest, FileLockIsReentrantAcrossInstancesSequentially) {
  auto l = dir_ / "lock";
  { auto a = FileLock::acquire(l); ASSERT_TRUE(a); }
  { auto b = FileLock::acquire(l); ASSERT_TRUE(b); }
}

TEST_F(FsTest, TempDirFollowsTmpdirAndNamesAWrongOne) {
  testing::ScopedEnvVar tmp("TMP", nullptr), temp("TEMP", nullptr), tempdir("TEMPDIR", nullptr);
  {
    testing::ScopedEnvVar unset("TMPDIR", nullptr);
    EXPECT_EQ(*temp_dir(), "/tmp");
  }
  {
    testing::ScopedEnvVar here("TMPDIR", dir_.c_str());
    EXPECT_EQ(*temp_dir(), dir_);
  }
  {
    testing::ScopedEnvVar empty("TMPDIR", "");
    EXPECT_EQ(*temp_dir(), "/tmp");  // empty is unset, as for sh
  }
  {
    auto missing = (dir_ / "nope").string();
    testing::ScopedEnvVar nope("TMPDIR", missing.c_str());
    auto r = temp_dir();
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().message(), "TMPDIR=" + missing +
                                       ": no such directory; set TMPDIR to a writable directory or unset it");
  }
  {
    ASSERT_TRUE(write_file_atomic(dir_ / "file", "x"));
    auto file = (dir_ / "file").string();
    testing::ScopedEnvVar unset("TMPDIR", nullptr);
    testing::ScopedEnvVar other("TMP", file.c_str());  // the next variable temp_directory_path reads
    auto r = temp_dir();
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message().find("TMP=" + file + ": not a directory"), std::string::npos) << r.error().message();
  }
}

// A FIFO (nobody writing) where a store, cache or configuration file should
// be: every reader refuses it at once, naming it and what it is, instead of
// waiting for a writer forever; a directory likewise.
TEST_F(FsTest, ReadersRefuseAFifoOrADirectoryWithoutWaiting) {
  auto fifo = dir_ / "index.json";
  strata::testing::make_fifo(fifo);
  auto expect_refused = [&](const Result<void>& r, const std::string& which) {
    ASSERT_FALSE(r) << which << " read the FIFO";
    EXPECT_TRUE(r.error().is(ErrorCode::kInvalidArgument)) << which << ": " << r.error().message();
    EXPECT_NE(r.error().message().find(fifo.string() + " is not a regular file (a FIFO)"), std::string::npos)
        << which << ": " << r.error().message();
  };
  auto whole = strata::testing::without_hanging(fifo, [&] { return read_file(fifo, 1 << 20); });
  expect_refused(whole ? Result<void>() : Result<void>(fail(whole.error())), "read_file");
  expect_refused(strata::testing::without_hanging(
                     fifo, [&] { return read_chunks(fifo, [](std::string_view) -> Result<void> { return {}; }); }),
                 "read_chunks");
  auto mapped = strata::testing::without_hanging(fifo, [&] { return MappedFile::open(fifo, 1 << 20); });
  expect_refused(mapped ? Result<void>() : Result<void>(fail(mapped.error())), "MappedFile::open");
  auto opened = strata::testing::without_hanging(fifo, [&] { return ReadableFile::open(fifo); });
  expect_refused(opened ? Result<void>() : Result<void>(fail(opened.error())), "ReadableFile::open");

  auto d = read_file(dir_);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message().find("is not a regular file (a directory)"), std::string::npos) << d.error().message();
  auto missing = read_file(dir_ / "absent");
  ASSERT_FALSE(missing);
  EXPECT_TRUE(missing.error().is(ErrorCode::kNotFound)) << missing.error().message();
  // A regular file reads as before, through a descriptor that blocks as usual.
  ASSERT_TRUE(write_file_atomic(dir_ / "f", "bytes"));
  auto f = ReadableFile::open(dir_ / "f");
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_EQ(f->size(), 5u);
  EXPECT_EQ(::fcntl(f->fd(), F_GETFL) & O_NONBLOCK, 0);
  EXPECT_EQ(*read_file(dir_ / "f"), "bytes");
}

// A write below the temporary directory that fails says which directory,
// that it is full, and what to do; not the name of a file strata made there.
TEST_F(FsTest, ATempDirErrorNamesTmpdirAndTheNextStep) {
  Error full = io_error("cannot write", dir_ / ".strata-archive-1-2" / "blobs" / "x.tmp", ENOSPC);
  auto e = temp_dir_error(full, dir_, "unpacking oci-archive:b.tar");
  EXPECT_TRUE(e.is(ErrorCode::kIoError));
  EXPECT_NE(e.message().find("unpacking oci-archive:b.tar: the temporary directory " + dir_.string() +
                             " (TMPDIR) is full"),
            std::string::npos)
      << e.message();
  EXPECT_NE(e.message().find("free space there or set TMPDIR"), std::string::npos) << e.message();
  auto denied = temp_dir_error(io_error("cannot create", dir_ / "x", EACCES), dir_, "unpacking x");
  EXPECT_NE(denied.message().find("cannot be written"), std::string::npos) << denied.message();
  EXPECT_NE(denied.message().find("set TMPDIR to a writable directory"), std::string::npos) << denied.message();
}

}  // namespace
}  // namespace strata::fs
