#include "oci/registry/challenge.hpp"

#include <cctype>

#include "util/strings.hpp"

namespace strata::oci::registry {

std::string Challenge::param(std::string_view name) const {
  auto it = params.find(std::string(name));
  return it == params.end() ? std::string() : it->second;
}

namespace {

bool is_token_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

struct Cursor {
  std::string_view s;
  std::size_t i = 0;
  void skip_ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  }
  bool done() const { return i >= s.size(); }
  std::string token() {
    std::size_t start = i;
    while (i < s.size() && is_token_char(s[i])) ++i;
    return std::string(s.substr(start, i - start));
  }
  // A quoted-string with backslash escapes, or a token (token68 too, '=' padding).
  std::string value() {
    if (i < s.size() && s[i] == '"') {
      std::string out;
      for (++i; i < s.size() && s[i] != '"'; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) ++i;
        out += s[i];
      }
      if (i < s.size()) ++i;  // closing quote
      return out;
    }
    std::size_t start = i;
    while (i < s.size() && s[i] != ',' && s[i] != ' ' && s[i] != '\t') ++i;
    return std::string(s.substr(start, i - start));
  }
};

}  // namespace

std::vector<Challenge> parse_challenges(std::string_view header) {
  std::vector<Challenge> out;
  Cursor c{header};
  while (true) {
    c.skip_ws();
    while (!c.done() && c.s[c.i] == ',') {
      ++c.i;
      c.skip_ws();
    }
    if (c.done()) break;
    std::string scheme = c.token();
    if (scheme.empty()) break;  // junk: stop rather than loop
    Challenge ch{str::lower(scheme), {}};
    // Parameters: name=value pairs separated by commas, until the next scheme.
    while (true) {
      c.skip_ws();
      std::size_t mark = c.i;
      while (!c.done() && c.s[c.i] == ',') {
        ++c.i;
        c.skip_ws();
      }
      std::size_t name_start = c.i;
      std::string name = c.token();
      c.skip_ws();
      if (name.empty() || c.done() || c.s[c.i] != '=') {
        // Not a parameter: either the end or the next challenge's scheme.
        c.i = name.empty() ? c.i : name_start;
        if (c.i == mark && name.empty()) c.i = mark;
        break;
      }
      ++c.i;  // '='
      c.skip_ws();
      ch.params[str::lower(name)] = c.value();
    }
    out.push_back(std::move(ch));
  }
  return out;
}

std::optional<Challenge> pick_challenge(const std::vector<std::string>& header_values) {
  std::optional<Challenge> basic;
  for (const auto& v : header_values) {
    for (auto& ch : parse_challenges(v)) {
      if (ch.scheme == "bearer") return ch;
      if (ch.scheme == "basic" && !basic) basic = std::move(ch);
    }
  }
  return basic;
}

std::vector<std::string> challenge_scopes(const Challenge& c) {
  std::vector<std::string> out;
  const std::string scope = c.param("scope");  // the views below point into it
  for (auto s : str::split_ws(scope)) out.emplace_back(s);
  return out;
}

}  // namespace strata::oci::registry
