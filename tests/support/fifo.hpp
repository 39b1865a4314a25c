// A FIFO where a file should be (a blob, an index.json, a cache entry), and a
// way to call code that may block on it without hanging the test: the call
// runs on another thread; when it has not returned after a generous while
// (hang detection only, never a performance bound), the test fails and the
// FIFO is opened for writing and closed, which gives the blocked reader
// end-of-file so the thread ends and the test can go on.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <string>

namespace strata::testing {

// Replaces `path` (removed if present) with a FIFO nobody writes to.
inline void make_fifo(const std::filesystem::path& path) {
  std::error_code ec;
  std::filesystem::remove(path, ec);
  ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0) << path;
}

// Runs `call` (which may read `fifo`) and returns its result; a call still
// blocked after `hang` fails the test ("blocked on the FIFO") and is
// released by a writer that opens and closes the FIFO.
template <class F>
auto without_hanging(const std::filesystem::path& fifo, F&& call,
                     std::chrono::seconds hang = std::chrono::seconds(30)) {
  auto done = std::async(std::launch::async, std::forward<F>(call));
  if (done.wait_for(hang) != std::future_status::ready) {
    ADD_FAILURE() << "blocked on the FIFO " << fifo;
    for (int i = 0; i < 100 && done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready; ++i) {
      int fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
      if (fd >= 0) ::close(fd);
    }
  }
  return done.get();
}

}  // namespace strata::testing
