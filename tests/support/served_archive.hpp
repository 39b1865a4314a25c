// A signed fixture Debian archive built at test time (make_archive.sh) and
// served over HTTP (archive_server.py) until the test process exits. The
// archive is built in SERVED/main; SERVED is what the server publishes, so
// variants copied beside main (SERVED/NAME) are served too.
#pragma once

#include <filesystem>
#include <string>

namespace strata::testing {

// Runs a shell command; a failure fails the test binary at once (fixtures
// cannot continue without what it makes).
void must(const std::string& command);

class ServedArchive {
 public:
  // `defs`: make_archive.sh's STRATA_ARCHIVE_DEFS (a testdata directory),
  // empty for its default archive.
  explicit ServedArchive(std::filesystem::path served, const std::filesystem::path& defs = {});

  const std::filesystem::path& served() const { return served_; }
  std::string url(const std::string& variant = "main") const;  // http://127.0.0.1:PORT/variant
  std::filesystem::path keyring() const { return served_ / "main/keyring.gpg"; }
  std::filesystem::path gnupg_home() const { return served_ / "main/gnupg"; }
  // Writes an apt sources file at `path` for the main variant, signed-by the keyring.
  std::filesystem::path write_sources(const std::filesystem::path& path) const;

 private:
  std::filesystem::path served_;
  int port_ = 0;
};

}  // namespace strata::testing
