// RegistryServer: a real CNCF distribution registry (Debian docker-registry)
// for integration tests, started on 127.0.0.1 with a kernel-chosen port in a
// private temp dir, and stopped by PID (SIGTERM, then SIGKILL) on destruction.
//
//   kPlain        plain HTTP, no auth, deletes enabled
//   kHtpasswdTls  HTTPS with a self-signed cert (SAN IP:127.0.0.1), Basic auth
//   kToken        plain HTTP, Bearer token auth via tests/support/token_server.py
//
// A missing binary is an error (tests fail rather than skip). Not
// thread-safe; one instance per fixture.
#pragma once

#include "support/source_dir.hpp"

#include <sys/types.h>

#include <filesystem>
#include <memory>
#include <chrono>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace strata::testing {

// Starts a child process with stdout+stderr appended to `log`; returns its PID.
Result<pid_t> spawn_process(const std::vector<std::string>& argv, const std::filesystem::path& log);
// Runs a child to completion; returns its exit status (stdout to `out` if given).
Result<int> run_process(const std::vector<std::string>& argv, const std::filesystem::path& out = {});
// SIGTERM, wait up to `grace`, then SIGKILL and reap.
void stop_process(pid_t pid, std::chrono::milliseconds grace = std::chrono::milliseconds(5000));
// Polls `log` until a line contains `marker`; returns the text after it up to
// whitespace or quote. Fails after `timeout` or when `pid` exits.
Result<std::string> wait_for_log(const std::filesystem::path& log, std::string_view marker, pid_t pid,
                                 std::chrono::milliseconds timeout = std::chrono::milliseconds(20000));

class RegistryServer {
 public:
  enum class Mode { kPlain, kHtpasswdTls, kToken };

  static Result<std::unique_ptr<RegistryServer>> start(Mode mode);
  ~RegistryServer();
  RegistryServer(const RegistryServer&) = delete;
  RegistryServer& operator=(const RegistryServer&) = delete;

  Mode mode() const { return mode_; }
  // "127.0.0.1:PORT"
  const std::string& host_port() const { return host_port_; }
  // kHtpasswdTls: the self-signed certificate (its own CA).
  const std::filesystem::path& ca_cert() const { return ca_cert_; }
  // kHtpasswdTls: a certs.d-style root holding <host_port>/ca.crt.
  const std::filesystem::path& certs_dir() const { return certs_dir_; }
  // kHtpasswdTls, kToken: the accepted credentials.
  const std::string& username() const { return username_; }
  const std::string& password() const { return password_; }
  // A Docker config.json with the credentials (or an empty one), for --authfile.
  const std::filesystem::path& authfile() const { return authfile_; }
  // Writes a config.json with other credentials (e.g. a wrong password).
  std::filesystem::path write_authfile(const std::string& user, const std::string& pass) const;
  const std::filesystem::path& dir() const { return dir_; }
  // kToken: the JSON lines the token server logged (one per token request).
  std::string token_log() const;
  std::string log() const;

 private:
  RegistryServer() = default;
  Result<void> launch();

  Mode mode_ = Mode::kPlain;
  std::filesystem::path dir_;
  std::string host_port_;
  std::filesystem::path ca_cert_;
  std::filesystem::path certs_dir_;
  std::filesystem::path authfile_;
  std::string username_;
  std::string password_;
  pid_t registry_pid_ = -1;
  pid_t token_pid_ = -1;
};


}  // namespace strata::testing
