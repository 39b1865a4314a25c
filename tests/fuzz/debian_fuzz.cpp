// Fuzz target: deb822 stanzas, Release files, Packages indexes, apt sources
// in both formats, relationship fields, dpkg versions.
#include <cstdint>
#include <string>

#include "layer/apt/apt_sources.hpp"
#include "layer/debian/deb822.hpp"
#include "layer/apt/packages_index.hpp"
#include "layer/debian/relation.hpp"
#include "layer/apt/release.hpp"
#include "layer/debian/version.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // Only the parsing is under test (no crash, no hang, bounded work): a
  // result, value or error, is equally fine.
  (void)strata::layer::parse_deb822(text, "fuzz");
  (void)strata::layer::parse_release(text, "fuzz");
  (void)strata::layer::parse_packages_index(text, "fuzz");
  (void)strata::layer::parse_one_line_sources(text, "fuzz");
  (void)strata::layer::parse_deb822_sources(text, "fuzz");
  (void)strata::layer::parse_relations(text, "fuzz");
  // Version comparison is a total order on valid versions.
  auto nl = text.find('\n');
  if (nl != std::string_view::npos) {
    auto a = text.substr(0, nl), b = text.substr(nl + 1);
    if (strata::layer::validate_version(a, "a") && strata::layer::validate_version(b, "b")) {
      int ab = strata::layer::compare_versions(a, b), ba = strata::layer::compare_versions(b, a);
      if ((ab < 0) != (ba > 0) || (ab == 0) != (ba == 0)) __builtin_trap();
    }
  }
  return 0;
}
