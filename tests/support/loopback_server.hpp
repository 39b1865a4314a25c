// A fixture's HTTP server (a python3 script under tests/support/ that serves a
// directory on a free loopback port and prints "PORT N" once listening), run
// for the rest of the test process: it dies with the process, and at exit it
// is stopped together with the gpg-agent its fixture's signing started.
#pragma once

#include <filesystem>
#include <string>

namespace strata::testing {

// Starts `python3 tests/support/SCRIPT DIR` and returns its port; a server that
// does not start fails the test binary at once.
int start_loopback_server(const std::string& script, const std::filesystem::path& dir,
                          const std::filesystem::path& gnupg_home);

}  // namespace strata::testing
