// Running `strata --json …` from a test: the process result plus its parsed
// output, and `sh` for the checks tests make with standard tools.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "support/run.hpp"

namespace strata::testing {

struct JsonRun {
  RunResult run;
  nlohmann::json json;  // stdout parsed, when the command succeeded
  std::string digest;   // json["digest"], when present
};

inline JsonRun run_json(const std::vector<std::string>& argv, const std::string& env = "") {
  JsonRun r;
  r.run = run(argv, env);
  if (r.run.code == 0) {
    r.json = nlohmann::json::parse(r.run.out, nullptr, false);
    if (!r.json.is_discarded()) r.digest = r.json.value("digest", "");
  }
  return r;
}

// Runs a shell command that must succeed; its stdout.
inline std::string sh(const std::string& cmd) {
  auto r = run({"/bin/sh", "-c", cmd});
  EXPECT_EQ(r.code, 0) << cmd << "\n" << r.err;
  return r.out;
}

}  // namespace strata::testing
