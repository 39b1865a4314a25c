// Where tests find the source tree (testdata/, scripts) and the strata
// binary: the environment (STRATA_SOURCE_DIR, STRATA_BINARY) when set, else
// the paths CMake compiled in for every target under tests/.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>

namespace strata::testing {

inline std::filesystem::path source_dir() {
  if (const char* s = std::getenv("STRATA_SOURCE_DIR"); s != nullptr && *s != '\0') return s;
  return STRATA_TEST_SOURCE_DIR;
}

inline std::string strata_binary() {
  if (const char* b = std::getenv("STRATA_BINARY"); b != nullptr && *b != '\0') return b;
  return STRATA_TEST_BINARY;
}

}  // namespace strata::testing
