// Runs a program for a test and captures its exit code, stdout and stderr.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "support/shell.hpp"
#include "support/source_dir.hpp"
#include "support/temp_dir.hpp"

namespace strata::testing {

struct RunResult {
  int code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Runs argv through /bin/sh with stdout and stderr captured to files.
inline RunResult run(const std::vector<std::string>& argv, const std::string& env = "") {
  TempDir tmp;
  std::string cmd = env.empty() ? "" : env + " ";
  for (const auto& a : argv) cmd += shell_quote(a) + " ";
  cmd += "</dev/null >" + (tmp / "out").string() + " 2>" + (tmp / "err").string();
  int status = std::system(cmd.c_str());
  RunResult r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(tmp / "out");
  r.err = slurp(tmp / "err");
  return r;
}

inline std::string trim_nl(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace strata::testing
