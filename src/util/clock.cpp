#include "util/clock.hpp"

#include <thread>

namespace strata {
namespace {
class SystemClock final : public Clock {
 public:
  std::int64_t now() const override {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  void sleep(std::chrono::milliseconds d) override { std::this_thread::sleep_for(d); }
};
}  // namespace

Clock& system_clock() {
  static SystemClock clock;
  return clock;
}

}  // namespace strata
