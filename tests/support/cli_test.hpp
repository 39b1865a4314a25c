// A test of the strata binary: each test gets a temporary directory, and
// strata() runs the binary with --home DIR/home, so no test touches the
// user's state or another test's.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run.hpp"

namespace strata::testing {

class CliTest : public ::testing::Test {
 protected:
  RunResult strata(std::vector<std::string> args, const std::string& env = "") {
    args.insert(args.begin(), {strata_binary(), "--home", (dir_ / "home").string()});
    return run(args, env);
  }
  TempDir dir_;
};

}  // namespace strata::testing
