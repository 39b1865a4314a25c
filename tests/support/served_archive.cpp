#include "support/served_archive.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "support/loopback_server.hpp"
#include "support/source_dir.hpp"

namespace strata::testing {

void must(const std::string& command) {
  int rc = std::system(command.c_str());
  if (rc != 0) {
    ADD_FAILURE() << "command failed (" << rc << "): " << command;
    std::abort();
  }
}

ServedArchive::ServedArchive(std::filesystem::path served, const std::filesystem::path& defs)
    : served_(std::move(served)) {
  std::filesystem::path source = source_dir();
  std::string env = defs.empty() ? "" : "STRATA_ARCHIVE_DEFS=" + defs.string() + " ";
  must(env + (source / "tests/support/make_archive.sh").string() + " build " + (served_ / "main").string() +
       " >/dev/null");
  port_ = start_loopback_server("archive_server.py", served_, gnupg_home());
}

std::string ServedArchive::url(const std::string& variant) const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/" + variant;
}

std::filesystem::path ServedArchive::write_sources(const std::filesystem::path& path) const {
  std::ofstream(path) << "deb [signed-by=" << keyring().string() << "] " << url() << " stable main\n";
  return path;
}

}  // namespace strata::testing
