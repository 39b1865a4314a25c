// YAML documents whose aliases expand far beyond their size, for tests of
// oci::load_yaml and of every reader built on it.
#pragma once

#include <string>

namespace strata::testing {

// `key:` holding `levels` levels of ten aliases (`a1: &a1 [*a0, *a0, …]`):
// nine levels are a billion strings in under 1 KiB. Under its own key, so a
// reader that ignores or refuses unknown keys still has to parse it; the
// last level starts on line `levels + 2`.
inline std::string billion_laughs(int levels, const std::string& key = "lol") {
  std::string y = key + ":\n  a0: &a0 \"lol\"\n";
  for (int l = 1; l <= levels; ++l) {
    y += "  a" + std::to_string(l) + ": &a" + std::to_string(l) + " [";
    for (int i = 0; i < 10; ++i) y += std::string(i ? ", " : "") + "*a" + std::to_string(l - 1);
    y += "]\n";
  }
  return y;
}

// `key: &s "xxx…"` of `bytes` bytes: aliased N times, N × bytes of text.
inline std::string long_anchor(const std::string& key, std::size_t bytes) {
  return key + ": &s \"" + std::string(bytes, 'x') + "\"\n";
}

}  // namespace strata::testing
