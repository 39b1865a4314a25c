// Runs Docker credential helpers (`docker-credential-NAME get`): the server
// URL goes to the helper's stdin, a JSON object {ServerURL, Username, Secret}
// comes back on stdout. Part of the Keychain (keychain.hpp).
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "oci/registry/keychain.hpp"
#include "util/strings.hpp"

extern char** environ;

namespace strata::oci::registry {

namespace {

constexpr std::size_t kMaxHelperOutput = 64 * 1024;

std::optional<std::string> find_executable(const std::string& name, const std::string& search_path) {
  for (auto dir : str::split(search_path, ':')) {
    if (dir.empty()) continue;
    std::string candidate = std::string(dir) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

}  // namespace

Result<std::optional<Credential>> run_credential_helper(const std::string& helper, const std::string& server_url,
                                                        const std::string& search_path) {
  const std::string program = "docker-credential-" + helper;
  if (helper.empty() || helper.find('/') != std::string::npos) {
    return fail(ErrorCode::kInvalidArgument, "invalid credential helper name " + str::quote(helper));
  }
  auto path = find_executable(program, search_path);
  if (!path) {
    return fail(ErrorCode::kNotFound, program + " is not on PATH; install it or remove it from the config file");
  }
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0) return fail(ErrorCode::kIoError, "pipe: " + std::string(std::strerror(errno)));
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
    ::close(in_pipe[0]);
    ::close(in_pipe[1]);
    return fail(ErrorCode::kIoError, "pipe: " + std::string(std::strerror(errno)));
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_pipe[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe[1], 1);
  std::string arg0 = program;
  std::string arg1 = "get";
  char* argv[] = {arg0.data(), arg1.data(), nullptr};
  pid_t pid = 0;
  int rc = posix_spawn(&pid, path->c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  if (rc != 0) {
    ::close(in_pipe[1]);
    ::close(out_pipe[0]);
    return fail(ErrorCode::kIoError, "cannot run " + *path + ": " + std::strerror(rc));
  }
  // The input is one short line: it fits in the pipe buffer, so writing
  // before reading cannot deadlock.
  std::string input = server_url;
  [[maybe_unused]] auto written = ::write(in_pipe[1], input.data(), input.size());
  ::close(in_pipe[1]);
  std::string output;
  char buf[4096];
  while (output.size() < kMaxHelperOutput) {
    ssize_t n = ::read(out_pipe[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out_pipe[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  if (!ok) {
    // The helper protocol's answer for "nothing stored" is this exact text.
    if (output.find("credentials not found") != std::string::npos) return std::optional<Credential>();
    return fail(ErrorCode::kUnauthorized, program + " get failed (exit status " +
                                              std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
  }
  auto j = nlohmann::json::parse(output, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    return fail(ErrorCode::kInvalidArgument, program + " get printed something that is not a JSON object");
  }
  Credential c;
  if (auto u = j.find("Username"); u != j.end() && u->is_string()) c.username = *u;
  if (auto s = j.find("Secret"); s != j.end() && s->is_string()) c.password = *s;
  if (c.username == "<token>") {  // the helper convention for identity tokens
    c.identity_token = std::move(c.password);
    c.username.clear();
    c.password.clear();
  }
  if (!c.has_basic() && c.identity_token.empty()) return std::optional<Credential>();
  return std::optional<Credential>(std::move(c));
}

}  // namespace strata::oci::registry
