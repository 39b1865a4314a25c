// Fuzz target: the version files image facts read (node_version.h, Python's
// patchlevel.h, Go's VERSION, the JDK's release file), each parser over the
// input, plus the ENV and rustup-directory readers. The bytes are an
// image's: whatever they are, a reading is a version or a note naming the
// file (never both, never neither), and a version is short.
#include <array>
#include <cstdint>
#include <string>

#include "contract/image/runtime_markers.hpp"

namespace {

constexpr std::array<std::string_view, 6> kPaths = {
    "usr/local/include/node/node_version.h", "usr/include/node/node_version.h",
    "usr/local/include/python3.12/patchlevel.h", "usr/local/go/VERSION", "usr/lib/go/VERSION",
    "opt/java/openjdk/release"};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace strata::contract::image;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  for (auto path : kPaths) {
    if (!is_version_file(path)) __builtin_trap();
    auto reading = read_version_file(path, text);
    if (reading.fact.has_value() == !reading.note.empty()) __builtin_trap();
    if (reading.fact) {
      // node joins three values with dots; each is bounded.
      if (reading.fact->version.empty() || reading.fact->version.size() > 3 * kMaxVersionValueBytes + 2)
        __builtin_trap();
      if (reading.fact->source != "file /" + std::string(path)) __builtin_trap();
    } else if (reading.note.find("/" + std::string(path) + ": ") != 0) {
      __builtin_trap();
    }
  }
  // Only the parsing is under test (no crash, no hang, bounded work): a
  // result, value or error, is equally fine.
  (void)runtime_of_env(text);
  (void)runtime_of_rustup_toolchain(text);
  (void)upstream_version(text);
  return 0;
}
