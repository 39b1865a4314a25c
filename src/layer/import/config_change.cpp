#include "layer/import/config_change.hpp"

#include "util/strings.hpp"

namespace strata::layer {

namespace {

Error bad(std::string_view instruction, std::string why) {
  return Error(ErrorCode::kInvalidArgument, "--change " + str::quote(instruction) + ": " + why);
}

// Splits on unquoted whitespace; removes quotes; backslash escapes the next
// character outside single quotes.
Result<std::vector<std::string>> words(std::string_view s, std::string_view instruction) {
  std::vector<std::string> out;
  std::string cur;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    char c = s[i];
    if (quote) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < s.size()) {
        cur += s[++i];
      } else {
        cur += c;
      }
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n') {
      if (in_word) out.push_back(std::move(cur));
      cur.clear();
      in_word = false;
      continue;
    }
    in_word = true;
    if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '\\' && i + 1 < s.size()) {
      cur += s[++i];
    } else {
      cur += c;
    }
  }
  if (quote) return std::unexpected(bad(instruction, "unterminated quote"));
  if (in_word) out.push_back(std::move(cur));
  return out;
}

Result<std::vector<std::pair<std::string, std::string>>> key_values(std::string_view rest,
                                                                    std::string_view instruction) {
  STRATA_TRY(auto ws, words(rest, instruction));
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& w : ws) {
    auto eq = w.find('=');
    if (eq == std::string::npos || eq == 0) {
      return std::unexpected(bad(instruction, "expected KEY=VALUE, got " + str::quote(w)));
    }
    out.emplace_back(w.substr(0, eq), w.substr(eq + 1));
  }
  if (out.empty()) return std::unexpected(bad(instruction, "expected at least one KEY=VALUE"));
  return out;
}

Result<std::vector<std::string>> command(std::string_view rest, std::string_view instruction) {
  if (rest.empty()) return std::unexpected(bad(instruction, "missing command"));
  if (rest.front() == '[') {
    auto j = nlohmann::json::parse(rest, nullptr, false);
    if (j.is_discarded() || !j.is_array()) {
      return std::unexpected(bad(instruction, "not a JSON array of strings (exec form)"));
    }
    std::vector<std::string> out;
    for (const auto& x : j) {
      if (!x.is_string()) return std::unexpected(bad(instruction, "exec form elements must be strings"));
      out.push_back(x.get<std::string>());
    }
    return out;
  }
  return std::vector<std::string>{"/bin/sh", "-c", std::string(rest)};
}

void set_env(std::vector<std::string>& env, const std::string& key, const std::string& value) {
  for (auto& e : env) {
    if (e.compare(0, key.size() + 1, key + "=") == 0) {
      e = key + "=" + value;
      return;
    }
  }
  env.push_back(key + "=" + value);
}

}  // namespace

Result<RuntimeConfig> apply_change(RuntimeConfig c, std::string_view instruction) {
  std::string_view text = str::trim(instruction);
  auto sp = text.find_first_of(" \t");
  std::string keyword = str::lower(text.substr(0, sp));
  std::string_view rest = sp == std::string_view::npos ? std::string_view() : str::trim(text.substr(sp));
  if (keyword == "env") {
    STRATA_TRY(auto ws, words(rest, instruction));
    if (!ws.empty() && ws[0].find('=') == std::string::npos) {
      // Legacy form: ENV KEY value with spaces.
      auto ksp = rest.find_first_of(" \t");
      if (ksp == std::string_view::npos) return std::unexpected(bad(instruction, "ENV KEY needs a value"));
      STRATA_TRY(auto value, words(str::trim(rest.substr(ksp)), instruction));
      set_env(c.env, ws[0], str::join(value, " "));
      return c;
    }
    STRATA_TRY(auto kvs, key_values(rest, instruction));
    for (const auto& [k, v] : kvs) set_env(c.env, k, v);
    return c;
  }
  if (keyword == "label") {
    STRATA_TRY(auto kvs, key_values(rest, instruction));
    for (const auto& [k, v] : kvs) c.labels[k] = v;
    return c;
  }
  if (keyword == "cmd") {
    STRATA_TRY(c.cmd, command(rest, instruction));
    return c;
  }
  if (keyword == "entrypoint") {
    STRATA_TRY(c.entrypoint, command(rest, instruction));
    return c;
  }
  if (keyword == "workdir") {
    STRATA_TRY(auto ws, words(rest, instruction));
    if (ws.size() != 1) return std::unexpected(bad(instruction, "WORKDIR takes one path"));
    if (ws[0].starts_with('/')) {
      c.working_dir = ws[0];
    } else {
      std::string base = c.working_dir.empty() ? "/" : c.working_dir;
      if (!base.ends_with('/')) base += '/';
      c.working_dir = base + ws[0];
    }
    return c;
  }
  if (keyword == "user") {
    STRATA_TRY(auto ws, words(rest, instruction));
    if (ws.size() != 1 || ws[0].empty()) return std::unexpected(bad(instruction, "USER takes one user[:group]"));
    c.user = ws[0];
    return c;
  }
  if (keyword == "expose") {
    STRATA_TRY(auto ws, words(rest, instruction));
    if (ws.empty()) return std::unexpected(bad(instruction, "EXPOSE needs a port"));
    for (const auto& w : ws) {
      auto slash = w.find('/');
      std::string proto = slash == std::string::npos ? "tcp" : str::lower(w.substr(slash + 1));
      auto port = str::parse_u64(w.substr(0, slash));
      if (!port || *port == 0 || *port > 65535 || (proto != "tcp" && proto != "udp" && proto != "sctp")) {
        return std::unexpected(bad(instruction, str::quote(w) + " is not PORT[/tcp|udp|sctp]"));
      }
      c.exposed_ports.insert(std::to_string(*port) + "/" + proto);
    }
    return c;
  }
  return std::unexpected(
      bad(instruction, "unsupported instruction; use ENV, CMD, ENTRYPOINT, WORKDIR, USER, LABEL or EXPOSE"));
}

nlohmann::ordered_json to_json(const RuntimeConfig& c) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!c.user.empty()) j["User"] = c.user;
  if (!c.exposed_ports.empty()) {
    nlohmann::ordered_json ports = nlohmann::ordered_json::object();
    for (const auto& p : c.exposed_ports) ports[p] = nlohmann::ordered_json::object();
    j["ExposedPorts"] = ports;
  }
  if (!c.env.empty()) j["Env"] = c.env;
  if (c.entrypoint) j["Entrypoint"] = *c.entrypoint;
  if (c.cmd) j["Cmd"] = *c.cmd;
  if (!c.working_dir.empty()) j["WorkingDir"] = c.working_dir;
  if (!c.labels.empty()) {
    nlohmann::ordered_json labels = nlohmann::ordered_json::object();
    for (const auto& [k, v] : c.labels) labels[k] = v;
    j["Labels"] = labels;
  }
  return j;
}

}  // namespace strata::layer
