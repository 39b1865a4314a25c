// Whether a thread is blocked on a file lock, from /proc/locks: a test that
// must act only once another thread waits for a lock this process holds
// (the library tells its LockWaitListener of other processes only).
#pragma once

#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

namespace strata::testing {

// A blocked request ("->") on the file `path` is listed.
inline bool lock_waiter_listed(const std::filesystem::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  std::ifstream in("/proc/locks");
  for (std::string line; std::getline(in, line);) {
    std::istringstream fields(line);
    std::string id, arrow, kind, advisory, mode, pid, where;
    fields >> id >> arrow;
    if (arrow != "->") continue;
    fields >> kind >> advisory >> mode >> pid >> where;
    unsigned long maj = 0, min = 0, inode = 0;
    if (std::sscanf(where.c_str(), "%lx:%lx:%lu", &maj, &min, &inode) != 3) continue;
    if (inode == st.st_ino && maj == major(st.st_dev) && min == minor(st.st_dev)) return true;
  }
  return false;
}

// Looks until a waiter on `path` is listed (up to `tries` looks, 10 ms
// apart); false if none ever was.
inline bool wait_for_lock_waiter(const std::filesystem::path& path, int tries = 3000) {
  for (int i = 0; i < tries; ++i) {
    if (lock_waiter_listed(path)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace strata::testing
