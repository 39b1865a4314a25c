// What every subcommand shares: the global options of docs/CLI.md, exit codes,
// the failure type that carries an exit code to main(), and output helpers
// (results on stdout, everything else on stderr).
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "oci/open_store.hpp"
#include "util/error.hpp"

namespace strata::cli {

// Exit codes (docs/CLI.md): 0 success, 1 failure, 2 usage, 3 a check found gaps.
enum ExitCode : int { kExitOk = 0, kExitFailure = 1, kExitUsage = 2, kExitGaps = 3 };

struct GlobalOptions {
  std::string home;                      // --home / STRATA_HOME
  std::string authfile;                  // --authfile
  std::vector<std::string> insecure;     // --insecure-registry (repeatable)
  std::vector<std::string> cert_dirs;    // --cert-dir (repeatable)
  int jobs = 4;                          // --jobs
  int connect_timeout = 0;               // --connect-timeout / STRATA_CONNECT_TIMEOUT (0: default)
  int low_speed_timeout = 0;             // --low-speed-timeout / STRATA_LOW_SPEED_TIMEOUT (0: default)
  bool verbose = false;                  // -v
  bool quiet = false;                    // -q
  bool json = false;                     // --json
  bool offline = false;                  // --offline / STRATA_OFFLINE=1
  std::string containerd_address;        // --containerd-address / CONTAINERD_ADDRESS
  std::string containerd_namespace;      // --containerd-namespace / CONTAINERD_NAMESPACE

  oci::OpenOptions open_options() const;
  // Progress bars only on a terminal and never with -q or --json.
  bool show_progress() const;
};

// Thrown by a command to end the process with `code` and a one-line reason.
struct Exit {
  int code;
  std::string message;
};

// Unwraps a Result or ends the command with exit code 1 and the error.
template <class T>
T check(Result<T> r) {
  if (!r) throw Exit{kExitFailure, r.error().message()};
  if constexpr (!std::is_void_v<T>) return std::move(*r);
}

// Opens the store an image reference names, or ends the command.
oci::OpenedStore open_ref(const GlobalOptions& g, const std::string& text, oci::Access access);

// Registers a subcommand with the shared help footer and fallthrough of the
// global options.
CLI::App* add_command(CLI::App& app, const std::string& name, const std::string& description,
                      const std::string& examples);

// Run once every command is registered, over the whole tree: a repeatable
// option takes exactly one value per occurrence (`--sources A --sources B`),
// so options may stand before, between or after positional arguments with
// the same meaning (docs/CLI.md). CLI11 would otherwise let a repeatable
// option swallow the words after it.
void one_value_per_occurrence(CLI::App& app);

// After a parse error: when it is because the words name no command, the
// exit that says so (exit 2), with the nearest known name when one is close.
// nullopt for any other error.
std::optional<Exit> unknown_command(const CLI::App& app);

// --index-max-age DURATION, on every command that reads apt indexes: an
// InRelease confirmed current within it is used without the network
// (layer::ArchiveOptions::index_max_age). `value` starts as the default.
inline constexpr const char* kDefaultIndexMaxAge = "5m";
void add_index_max_age(CLI::App* cmd, std::string& value);
// Its seconds, or the usage exit naming the value.
std::int64_t index_max_age(const std::string& value);

void log_info(const GlobalOptions& g, const std::string& msg);   // stderr unless -q
void log_debug(const GlobalOptions& g, const std::string& msg);  // stderr with -v

}  // namespace strata::cli
