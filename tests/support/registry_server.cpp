#include "support/registry_server.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "util/fs.hpp"

extern char** environ;

namespace strata::testing {

namespace {

std::string base64(std::string_view in) {
  static constexpr char k[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (static_cast<unsigned char>(in[i]) << 16) | (static_cast<unsigned char>(in[i + 1]) << 8) |
                 static_cast<unsigned char>(in[i + 2]);
    out += {k[(v >> 18) & 63], k[(v >> 12) & 63], k[(v >> 6) & 63], k[v & 63]};
  }
  if (i < in.size()) {
    unsigned v = static_cast<unsigned char>(in[i]) << 16;
    if (i + 1 < in.size()) v |= static_cast<unsigned char>(in[i + 1]) << 8;
    out += {k[(v >> 18) & 63], k[(v >> 12) & 63], i + 1 < in.size() ? k[(v >> 6) & 63] : '=', '='};
  }
  return out;
}

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Result<pid_t> spawn_with_output(const std::vector<std::string>& argv, const std::filesystem::path& out, bool append) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  int flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC);
  if (!out.empty()) {
    posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), flags, 0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return fail(ErrorCode::kNotFound, "cannot start " + argv[0] + ": " + std::strerror(rc));
  return pid;
}

}  // namespace

Result<pid_t> spawn_process(const std::vector<std::string>& argv, const std::filesystem::path& log) {
  return spawn_with_output(argv, log, true);
}

Result<int> run_process(const std::vector<std::string>& argv, const std::filesystem::path& out) {
  STRATA_TRY(pid_t pid, spawn_with_output(argv, out, false));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) return fail(ErrorCode::kIoError, argv[0] + " was killed");
  if (WEXITSTATUS(status) == 127) return fail(ErrorCode::kNotFound, argv[0] + " is not installed");
  return WEXITSTATUS(status);
}

void stop_process(pid_t pid, std::chrono::milliseconds grace) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  auto deadline = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    if (waitpid(pid, &status, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ::kill(pid, SIGKILL);
  waitpid(pid, &status, 0);
}

Result<std::string> wait_for_log(const std::filesystem::path& log, std::string_view marker, pid_t pid,
                                 std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    std::string text = read_all(log);
    auto at = text.find(marker);
    if (at != std::string::npos) {
      auto start = at + marker.size();
      auto end = text.find_first_of(" \t\r\n\",", start);
      return text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    }
    int status = 0;
    if (waitpid(pid, &status, WNOHANG) == pid) {
      return fail(ErrorCode::kUnavailable, "process exited before logging \"" + std::string(marker) + "\": " + text);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return fail(ErrorCode::kUnavailable, "timed out waiting for \"" + std::string(marker) + "\" in " + log.string());
}

Result<std::unique_ptr<RegistryServer>> RegistryServer::start(Mode mode) {
  std::unique_ptr<RegistryServer> s(new RegistryServer());
  s->mode_ = mode;
  std::string tmpl = (std::filesystem::temp_directory_path() / "strata-registry-XXXXXX").string();
  if (mkdtemp(tmpl.data()) == nullptr) return fail(ErrorCode::kIoError, "mkdtemp failed");
  s->dir_ = tmpl;
  STRATA_TRY_VOID(s->launch());
  return s;
}

Result<void> RegistryServer::launch() {
  if (::access("/usr/bin/docker-registry", X_OK) != 0) {
    return fail(ErrorCode::kNotFound, "/usr/bin/docker-registry is missing; run scripts/setup.sh test");
  }
  std::string config = "version: 0.1\nlog:\n  level: info\nstorage:\n  filesystem:\n    rootdirectory: " +
                       (dir_ / "data").string() +
                       "\n  delete:\n    enabled: true\n  maintenance:\n    uploadpurging:\n      enabled: false\n"
                       "http:\n  addr: 127.0.0.1:0\n  secret: test-secret-not-for-production\n";
  std::string scheme = "http";
  if (mode_ == Mode::kHtpasswdTls) {
    username_ = "testuser";
    password_ = "testpass";
    STRATA_TRY(int rc, run_process({"htpasswd", "-Bbn", username_, password_}, dir_ / "htpasswd"));
    if (rc != 0) return fail(ErrorCode::kIoError, "htpasswd failed");
    ca_cert_ = dir_ / "cert.pem";
    STRATA_TRY(rc, run_process({"openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout",
                                (dir_ / "key.pem").string(), "-out", ca_cert_.string(), "-days", "2", "-subj",
                                "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"},
                               dir_ / "openssl.log"));
    if (rc != 0) return fail(ErrorCode::kIoError, "openssl req failed: " + read_all(dir_ / "openssl.log"));
    config += "  tls:\n    certificate: " + ca_cert_.string() + "\n    key: " + (dir_ / "key.pem").string() +
              "\nauth:\n  htpasswd:\n    realm: test-realm\n    path: " + (dir_ / "htpasswd").string() + "\n";
    scheme = "https";
  } else if (mode_ == Mode::kToken) {
    username_ = "testuser";
    password_ = "testpass";
    auto script = source_dir() / "tests" / "support" / "token_server.py";
    STRATA_TRY(token_pid_, spawn_process({"python3", script.string(), "--dir", dir_.string()}, dir_ / "token.out"));
    STRATA_TRY(auto port, wait_for_log(dir_ / "token.out", "listening on ", token_pid_));
    config += "auth:\n  token:\n    realm: http://127.0.0.1:" + port +
              "/token\n    service: test-registry\n    issuer: test-issuer\n    rootcertbundle: " +
              (dir_ / "token.crt").string() + "\n";
  }
  STRATA_TRY_VOID(fs::write_file_atomic(dir_ / "config.yml", config));
  STRATA_TRY(registry_pid_,
             spawn_process({"/usr/bin/docker-registry", "serve", (dir_ / "config.yml").string()}, dir_ / "registry.log"));
  STRATA_TRY(auto addr, wait_for_log(dir_ / "registry.log", "listening on ", registry_pid_));
  host_port_ = addr;
  if (mode_ == Mode::kHtpasswdTls) {
    certs_dir_ = dir_ / "certs.d";
    std::filesystem::create_directories(certs_dir_ / host_port_);
    std::filesystem::copy_file(ca_cert_, certs_dir_ / host_port_ / "ca.crt");
  }
  authfile_ = username_.empty() ? write_authfile("", "") : write_authfile(username_, password_);
  return {};
}

std::filesystem::path RegistryServer::write_authfile(const std::string& user, const std::string& pass) const {
  auto path = dir_ / ("auth-" + std::to_string(std::hash<std::string>{}(user + ":" + pass)) + ".json");
  std::string body = user.empty() ? R"({"auths":{}})"
                                  : R"({"auths":{")" + host_port_ + R"(":{"auth":")" + base64(user + ":" + pass) + R"("}}})";
  // A test that cannot write its credentials must stop here, not fail
  // later as a registry refusing them.
  if (auto w = fs::write_file_atomic(path, body, 0600); !w) throw std::runtime_error(w.error().message());
  return path;
}

std::string RegistryServer::token_log() const { return read_all(dir_ / "token.log"); }
std::string RegistryServer::log() const { return read_all(dir_ / "registry.log"); }

RegistryServer::~RegistryServer() {
  stop_process(registry_pid_);
  stop_process(token_pid_);
  std::error_code ec;
  if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
}

}  // namespace strata::testing
