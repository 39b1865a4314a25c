// Fuzz target: lock files (YAML) — parse, and a parsed lock writes bytes that
// parse back to the same lock.
#include <cstdint>
#include <string>

#include "layer/apt/lock_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lock = strata::layer::parse_lock(text, "fuzz");
  if (!lock) return 0;
  std::string once = strata::layer::write_lock(*lock);
  auto again = strata::layer::parse_lock(once, "fuzz-again");
  if (!again || strata::layer::write_lock(*again) != once) __builtin_trap();
  return 0;
}
