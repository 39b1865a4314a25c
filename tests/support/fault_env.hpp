// FaultEnv: an fs::Env (util/env.hpp) that fails one chosen operation, the
// way a full disk, a failing device or a refused rename would, and passes
// every other to the real filesystem. at_every_step() runs an operation once
// per step it takes, failing that step, until a run takes no step the fault
// can hit: a test then checks what each failure left on disk.
// Thread-safe (the .deb fetcher writes from worker threads).
#pragma once

#include <gtest/gtest.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "util/env.hpp"

namespace strata::testing {

// Which operations a fault can hit, and the errno they fail with.
struct Fault {
  std::string name;
  std::vector<fs::Op> ops;
  int err;
};

// The faults the store tests inject at every step: a full disk (whatever
// allocates space), an I/O error (any operation), and a rename refused
// across devices or by permissions.
inline const std::vector<Fault>& standard_faults() {
  using fs::Op;
  static const std::vector<Fault> faults = {
      {"ENOSPC", {Op::kOpen, Op::kWrite, Op::kSync, Op::kMakeDir, Op::kRename, Op::kLink, Op::kTruncate}, ENOSPC},
      {"EIO",
       {Op::kOpen, Op::kWrite, Op::kSync, Op::kClose, Op::kTruncate, Op::kRename, Op::kRemove, Op::kLink,
        Op::kMakeDir, Op::kList},
       EIO},
      {"EXDEV", {Op::kRename, Op::kLink}, EXDEV},
      {"EACCES", {Op::kRename, Op::kLink}, EACCES},
  };
  return faults;
}

class FaultEnv final : public fs::Env {
 public:
  // Fails the `step`th (from 0) operation among `fault.ops`.
  FaultEnv(Fault fault, std::size_t step) : fault_(std::move(fault)), step_(step) {}

  bool fired() const {
    std::lock_guard l(mu_);
    return fired_;
  }
  fs::Op fired_op() const {
    std::lock_guard l(mu_);
    return fired_op_;
  }
  std::filesystem::path fired_path() const {
    std::lock_guard l(mu_);
    return fired_path_;
  }
  // "fsync of /tmp/…/index.json.tmp.1.0.5 (EIO, step 3)"
  std::string what_fired() const {
    std::lock_guard l(mu_);
    if (!fired_) return "no fault";
    return std::string(fs::op_name(fired_op_)) + " of " + fired_path_.string() + " (" + fault_.name + ", step " +
           std::to_string(step_) + ")";
  }
  int err() const { return fault_.err; }

  int open(const std::filesystem::path& path, int flags, unsigned mode, int& fd) override {
    if (hit(fs::Op::kOpen, path)) return fault_.err;
    int err = real().open(path, flags, mode, fd);
    if (err == 0) {
      std::lock_guard l(mu_);
      paths_[fd] = path;
    }
    return err;
  }
  int write(int fd, const void* data, std::size_t size, std::size_t& written) override {
    if (hit(fs::Op::kWrite, path_of(fd))) {
      // Half of it lands first, as when a disk fills mid-write.
      if (size > 1) (void)real().write(fd, data, size / 2, written);
      written = 0;
      return fault_.err;
    }
    return real().write(fd, data, size, written);
  }
  int fsync(int fd) override { return hit(fs::Op::kSync, path_of(fd)) ? fault_.err : real().fsync(fd); }
  int close(int fd) override {
    bool failing = hit(fs::Op::kClose, path_of(fd));
    {
      std::lock_guard l(mu_);
      paths_.erase(fd);
    }
    int err = real().close(fd);  // a failed close(2) still releases the descriptor
    return failing ? fault_.err : err;
  }
  int truncate(int fd, std::uint64_t size) override {
    return hit(fs::Op::kTruncate, path_of(fd)) ? fault_.err : real().truncate(fd, size);
  }
  int rename(const std::filesystem::path& from, const std::filesystem::path& to) override {
    return hit(fs::Op::kRename, to) ? fault_.err : real().rename(from, to);
  }
  int remove(const std::filesystem::path& path) override {
    return hit(fs::Op::kRemove, path) ? fault_.err : real().remove(path);
  }
  int remove_at(int dir_fd, const std::filesystem::path& dir, const std::string& name) override {
    return hit(fs::Op::kRemove, dir / name) ? fault_.err : real().remove_at(dir_fd, dir, name);
  }
  int link(const std::filesystem::path& from, const std::filesystem::path& to) override {
    return hit(fs::Op::kLink, to) ? fault_.err : real().link(from, to);
  }
  int link_open(int fd, const std::filesystem::path& fd_path, const std::filesystem::path& to) override {
    return hit(fs::Op::kLink, to) ? fault_.err : real().link_open(fd, fd_path, to);
  }
  int make_dir(const std::filesystem::path& path, unsigned mode) override {
    return hit(fs::Op::kMakeDir, path) ? fault_.err : real().make_dir(path, mode);
  }
  int list(const std::filesystem::path& dir, std::vector<std::string>& names) override {
    return hit(fs::Op::kList, dir) ? fault_.err : real().list(dir, names);
  }

 private:
  static fs::Env& real() { return fs::posix_env(); }

  bool hit(fs::Op op, const std::filesystem::path& path) {
    std::lock_guard l(mu_);
    bool counted = false;
    for (auto o : fault_.ops) counted = counted || o == op;
    if (!counted || fired_) return false;
    if (seen_++ != step_) return false;
    fired_ = true;
    fired_op_ = op;
    fired_path_ = path;
    return true;
  }
  std::filesystem::path path_of(int fd) const {
    std::lock_guard l(mu_);
    auto it = paths_.find(fd);
    return it == paths_.end() ? std::filesystem::path("fd " + std::to_string(fd)) : it->second;
  }

  Fault fault_;
  std::size_t step_;
  mutable std::mutex mu_;
  std::size_t seen_ = 0;
  bool fired_ = false;
  fs::Op fired_op_ = fs::Op::kOpen;
  std::filesystem::path fired_path_;
  std::map<int, std::filesystem::path> paths_;
};

// Runs `attempt(env)` with a FaultEnv installed for step 0, 1, 2, … of
// `fault` until a run fires no fault (the operation took fewer steps): every
// step the operation takes has failed once. `attempt` does the operation
// under the installed env and checks what it left (with the env still
// installed; check with plain reads). Returns the number of steps that
// failed.
template <class F>
std::size_t at_every_step(const Fault& fault, F&& attempt) {
  constexpr std::size_t kMaxSteps = 5000;  // a loop that never ends is a bug in the test
  for (std::size_t step = 0; step < kMaxSteps; ++step) {
    FaultEnv env(fault, step);
    fs::ScopedEnv installed(env);
    SCOPED_TRACE(fault.name + " at step " + std::to_string(step));
    attempt(env);
    if (!env.fired()) {
      // How many steps failed, in the test's XML report (--gtest_output=xml).
      ::testing::Test::RecordProperty("steps_" + fault.name, static_cast<int>(step));
      return step;
    }
    if (::testing::Test::HasFatalFailure()) return step;
  }
  ADD_FAILURE() << fault.name << ": still failing steps after " << kMaxSteps;
  return kMaxSteps;
}

// An error a fault caused names the file and says what the system said.
inline ::testing::AssertionResult names_the_fault(const std::string& message, const FaultEnv& env) {
  std::string errno_text = std::strerror(env.err());
  if (message.find(errno_text) == std::string::npos) {
    return ::testing::AssertionFailure() << "no \"" << errno_text << "\" in: " << message << " [" << env.what_fired()
                                         << "]";
  }
  if (message.find(env.fired_path().string()) == std::string::npos) {
    return ::testing::AssertionFailure() << "the error does not name " << env.fired_path() << ": " << message;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace strata::testing
