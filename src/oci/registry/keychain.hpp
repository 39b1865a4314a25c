// Keychain: registry credentials from Docker-format config files
// (`auths` entries with `auth` = base64 "user:pass" or `username`/`password`,
// `identitytoken`; `credHelpers` per registry and `credsStore`, which run
// `docker-credential-NAME get`).
//
// Files, per docs/CLI.md: `--authfile FILE` alone when given; otherwise
// `$DOCKER_CONFIG/config.json`, `~/.docker/config.json`, then
// `$XDG_RUNTIME_DIR/containers/auth.json`, searched in that order (the first
// file with an entry for the registry wins). docker.io is looked up under
// `https://index.docker.io/v1/` and its aliases.
//
// Credentials never appear in messages or errors. Thread-safety: an immutable
// value after load(); lookup() may run helpers and is safe to call
// concurrently.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace strata::oci::registry {

struct Credential {
  std::string username;
  std::string password;
  std::string identity_token;  // an OAuth2 refresh token (Docker Desktop, ACR)

  bool has_basic() const { return !username.empty() || !password.empty(); }
};

struct KeychainOptions {
  std::optional<std::filesystem::path> authfile;  // --authfile: the only file read
  std::string docker_config_dir;                  // $DOCKER_CONFIG ("" = unset)
  std::string home;                               // $HOME
  std::string xdg_runtime_dir;                    // $XDG_RUNTIME_DIR
  std::string helper_path;                        // PATH for docker-credential-*; "" = $PATH

  // The values above from the process environment, with `authfile`.
  static KeychainOptions from_environment(std::optional<std::filesystem::path> authfile);
};

class Keychain {
 public:
  // Reads and parses the config files (a malformed file is an error naming
  // it; an absent default file is skipped; an absent --authfile is an error).
  static Result<Keychain> load(const KeychainOptions& options);
  // A keychain with no files: anonymous everywhere.
  static Keychain anonymous() { return Keychain(); }

  // Credentials for a registry ("docker.io", "host:port"); nullopt = anonymous.
  Result<std::optional<Credential>> lookup(std::string_view registry) const;

  // The server URL a credential helper is asked about for a registry.
  static std::string helper_server_url(std::string_view registry);

 private:
  struct Entry {
    std::string key;  // normalised registry host[:port]
    Credential credential;
  };
  struct File {
    std::string path;
    std::vector<Entry> auths;
    std::vector<std::pair<std::string, std::string>> cred_helpers;  // registry → helper
    std::string creds_store;
  };
  std::vector<File> files_;
  std::string helper_path_;
};

// Runs `docker-credential-<helper> get` with `server_url` on stdin and parses
// its answer; nullopt when the helper has no credentials for it.
Result<std::optional<Credential>> run_credential_helper(const std::string& helper, const std::string& server_url,
                                                        const std::string& search_path);

// "docker.io" for Docker Hub's aliases, else the host[:port] of a config key
// ("https://host:5000/v2/" → "host:5000").
std::string normalize_registry_key(std::string_view key);

}  // namespace strata::oci::registry
