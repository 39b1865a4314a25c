// What the router tests share: a fixture repository's contract (scan), a
// base image with nothing on it but base-files, and a plan's rows as one line
// each ("kind | name | need | layer[ | packages][ | left out (run)| not
// needed]"), the form their expectations are written in.
#pragma once

#include <string>
#include <vector>

#include "contract/fixture_support.hpp"
#include "contract/route/router.hpp"
#include "util/strings.hpp"

namespace strata::contract::route {

// testdata/repos/NAME scanned (a failed scan fails the test).
inline Contract scan(const std::string& name) { return testing::scan_fixture(name); }

inline image::ImageFacts bare_base() {
  image::ImageFacts f;
  f.manifest_digest = "sha256:" + std::string(64, 'b');
  f.platform = {"linux", "amd64", "", ""};
  f.path = {"/usr/local/bin", "/usr/bin", "/bin"};
  f.packages = {{"base-files", "12.4"}};
  return f;
}

inline std::vector<std::string> rows(const Plan& p) {
  std::vector<std::string> out;
  for (const auto& r : p.rows) {
    std::string line = std::string(kind_name(r.kind)) + " | " + r.name + " | " + r.need + " | " + layer_name(r.layer);
    if (!r.packages.empty()) line += " | " + str::join(r.packages, " ");
    if (!r.needed) line += r.purpose == Purpose::kRun ? " | left out (run)" : " | not needed";
    out.push_back(line);
  }
  return out;
}

}  // namespace strata::contract::route
