#include "oci/registry/keychain.hpp"

#include <nlohmann/json.hpp>

#include "util/fs.hpp"
#include "util/strings.hpp"

namespace strata::oci::registry {

namespace {

std::string getenv_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr ? std::string(v) : std::string();
}

std::optional<std::string> base64_decode(std::string_view in) {
  static constexpr std::string_view kChars =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  std::uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    if (c == '=' || c == '\n' || c == '\r') continue;
    auto pos = kChars.find(c);
    if (pos == std::string_view::npos) return std::nullopt;
    acc = (acc << 6) | static_cast<std::uint32_t>(pos);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out += static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  return out;
}

}  // namespace

std::string normalize_registry_key(std::string_view key) {
  std::string k = str::lower(str::trim(key));
  if (auto p = k.find("://"); p != std::string::npos) k = k.substr(p + 3);
  k = k.substr(0, k.find('/'));
  if (k == "index.docker.io" || k == "registry-1.docker.io" || k == "docker.io") return "docker.io";
  return k;
}

std::string Keychain::helper_server_url(std::string_view registry) {
  std::string r = normalize_registry_key(registry);
  return r == "docker.io" ? "https://index.docker.io/v1/" : r;
}

KeychainOptions KeychainOptions::from_environment(std::optional<std::filesystem::path> authfile) {
  KeychainOptions o;
  o.authfile = std::move(authfile);
  o.docker_config_dir = getenv_or_empty("DOCKER_CONFIG");
  o.home = getenv_or_empty("HOME");
  o.xdg_runtime_dir = getenv_or_empty("XDG_RUNTIME_DIR");
  o.helper_path = getenv_or_empty("PATH");
  return o;
}

Result<Keychain> Keychain::load(const KeychainOptions& options) {
  std::vector<std::pair<std::filesystem::path, bool>> candidates;  // path, must exist
  if (options.authfile) {
    candidates.emplace_back(*options.authfile, true);
  } else {
    if (!options.docker_config_dir.empty())
      candidates.emplace_back(std::filesystem::path(options.docker_config_dir) / "config.json", false);
    if (!options.home.empty())
      candidates.emplace_back(std::filesystem::path(options.home) / ".docker" / "config.json", false);
    if (!options.xdg_runtime_dir.empty())
      candidates.emplace_back(std::filesystem::path(options.xdg_runtime_dir) / "containers" / "auth.json", false);
  }
  Keychain kc;
  kc.helper_path_ = options.helper_path;
  for (const auto& [path, required] : candidates) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      if (required)
        return fail(ErrorCode::kNotFound, "authfile " + path.string() + " does not exist; check --authfile");
      continue;
    }
    STRATA_TRY(auto text, with_context(fs::read_file(path, 16 << 20), "reading credentials"));
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_object()) {
      return fail(ErrorCode::kInvalidArgument,
                  "credentials file " + path.string() + " is not a JSON object; fix or remove it");
    }
    File f;
    f.path = path.string();
    if (auto it = j.find("auths"); it != j.end() && it->is_object()) {
      for (const auto& [key, val] : it->items()) {
        if (!val.is_object()) continue;
        Credential c;
        if (auto a = val.find("auth"); a != val.end() && a->is_string() && !a->get<std::string>().empty()) {
          auto decoded = base64_decode(a->get<std::string>());
          auto colon = decoded ? decoded->find(':') : std::string::npos;
          if (colon == std::string::npos) {
            // Name the file and the registry, never the value.
            return fail(ErrorCode::kInvalidArgument, "credentials file " + f.path + ": the \"auth\" entry for " +
                                                         key + " is not base64 of user:password");
          }
          c.username = decoded->substr(0, colon);
          c.password = decoded->substr(colon + 1);
        }
        if (auto u = val.find("username"); u != val.end() && u->is_string()) c.username = *u;
        if (auto p = val.find("password"); p != val.end() && p->is_string()) c.password = *p;
        if (auto t = val.find("identitytoken"); t != val.end() && t->is_string()) c.identity_token = *t;
        f.auths.push_back({normalize_registry_key(key), std::move(c)});
      }
    }
    if (auto it = j.find("credHelpers"); it != j.end() && it->is_object()) {
      for (const auto& [key, val] : it->items())
        if (val.is_string()) f.cred_helpers.emplace_back(normalize_registry_key(key), val.get<std::string>());
    }
    if (auto it = j.find("credsStore"); it != j.end() && it->is_string()) f.creds_store = *it;
    kc.files_.push_back(std::move(f));
  }
  return kc;
}

Result<std::optional<Credential>> Keychain::lookup(std::string_view registry) const {
  const std::string key = normalize_registry_key(registry);
  for (const auto& f : files_) {
    for (const auto& [host, helper] : f.cred_helpers) {
      if (host == key) {
        return with_context(run_credential_helper(helper, helper_server_url(key), helper_path_),
                            "credentials for " + key + " (credHelpers in " + f.path + ")");
      }
    }
    for (const auto& e : f.auths) {
      if (e.key == key && (e.credential.has_basic() || !e.credential.identity_token.empty())) return e.credential;
    }
    if (!f.creds_store.empty()) {
      STRATA_TRY(auto c, with_context(run_credential_helper(f.creds_store, helper_server_url(key), helper_path_),
                                      "credentials for " + key + " (credsStore in " + f.path + ")"));
      if (c) return c;
    }
  }
  return std::optional<Credential>();
}

}  // namespace strata::oci::registry
