// The time seam: code that needs "now" (token expiry, cache LRU, Release Date
// checks) takes a Clock& so tests control time without sleeping.
#pragma once

#include <chrono>
#include <cstdint>

namespace strata {

class Clock {
 public:
  virtual ~Clock() = default;
  // Seconds since the Unix epoch.
  virtual std::int64_t now() const = 0;
  // Blocks for `d`; a test clock advances instead of sleeping.
  virtual void sleep(std::chrono::milliseconds d) = 0;
};

// The real clock. Thread-safe.
Clock& system_clock();

// A clock that moves only when told to; sleep() advances it. Not thread-safe.
class ManualClock final : public Clock {
 public:
  explicit ManualClock(std::int64_t start) : now_(start) {}
  std::int64_t now() const override { return now_; }
  void sleep(std::chrono::milliseconds d) override { now_ += (d.count() + 999) / 1000; slept_ += d; }
  void advance(std::int64_t seconds) { now_ += seconds; }
  std::chrono::milliseconds total_slept() const { return slept_; }

 private:
  std::int64_t now_;
  std::chrono::milliseconds slept_{0};
};

}  // namespace strata
