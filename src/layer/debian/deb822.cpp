#include "layer/debian/deb822.hpp"

#include <strings.h>

#include "util/strings.hpp"

namespace strata::layer {

namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && ::strncasecmp(a.data(), b.data(), a.size()) == 0;
}

// deb-control(5): field names are US-ASCII printable characters except
// colon and space, and must not start with '#' or '-'.
bool valid_field_name(std::string_view name) {
  if (name.empty() || name[0] == '#' || name[0] == '-') return false;
  for (char c : name) {
    if (c <= 32 || c >= 127 || c == ':') return false;
  }
  return true;
}

Error parse_error(std::string_view origin, std::size_t line, std::string_view what) {
  return Error(ErrorCode::kInvalidArgument,
               std::string(origin) + ":" + std::to_string(line) + ": " + std::string(what));
}

}  // namespace

const Deb822Field* Deb822Stanza::find(std::string_view name) const {
  for (const auto& f : fields) {
    if (iequals(f.name, name)) return &f;
  }
  return nullptr;
}

std::optional<std::string_view> Deb822Stanza::get(std::string_view name) const {
  if (const auto* f = find(name)) return std::string_view(f->value);
  return std::nullopt;
}

Result<void> for_each_deb822_stanza(std::string_view text, std::string_view origin,
                                    const std::function<Result<void>(Deb822Stanza&&)>& fn,
                                    const Deb822Options& options) {
  Deb822Stanza current;
  std::size_t line_no = 0;
  std::size_t pos = 0;
  // dpkg drops trailing whitespace from a whole value, not from its lines.
  auto finish_raw = [&]() {
    if (!options.keep_raw || current.fields.empty()) return;
    auto& raw = current.fields.back().raw;
    while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\t' || raw.back() == '\n')) raw.pop_back();
  };
  auto flush = [&]() -> Result<void> {
    finish_raw();
    if (current.fields.empty()) return {};
    Deb822Stanza done = std::move(current);
    current = Deb822Stanza{};
    return fn(std::move(done));
  };
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.size() > options.max_line) {
      return std::unexpected(parse_error(origin, line_no, "line longer than " +
                                         std::to_string(options.max_line) + " bytes"));
    }
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\0') != std::string_view::npos) {
      return std::unexpected(parse_error(origin, line_no, "NUL byte in control data"));
    }
    if (str::trim(line).empty()) {
      // A whitespace-only line ends the stanza (as dpkg and apt accept).
      STRATA_TRY_VOID(flush());
      continue;
    }
    if (line[0] == '#') {
      if (options.allow_comments) continue;
      return std::unexpected(parse_error(origin, line_no, "comment lines are not allowed here"));
    }
    if (line[0] == ' ' || line[0] == '\t') {
      if (current.fields.empty()) {
        return std::unexpected(parse_error(
            origin, line_no, "continuation line without a field (does a stanza start with a space?)"));
      }
      std::string_view cont = line.substr(1);
      if (options.keep_raw) {
        current.fields.back().raw.push_back('\n');
        current.fields.back().raw.append(line);
      }
      auto& value = current.fields.back().value;
      value.push_back('\n');
      if (str::trim(cont) == ".") continue;  // an empty line inside the value
      value.append(cont);
      continue;
    }
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return std::unexpected(parse_error(origin, line_no,
                                         "expected 'Field: value', found " + str::quote(line, 60)));
    }
    std::string_view name = line.substr(0, colon);
    if (!valid_field_name(name)) {
      return std::unexpected(parse_error(origin, line_no, "invalid field name " + str::quote(name, 60)));
    }
    if (current.find(name) != nullptr) {
      return std::unexpected(parse_error(origin, line_no, "duplicate field " + std::string(name)));
    }
    if (current.fields.size() >= options.max_fields) {
      return std::unexpected(parse_error(origin, line_no, "too many fields in one stanza"));
    }
    if (current.fields.empty()) current.line = line_no;
    finish_raw();
    std::string_view rest = line.substr(colon + 1);
    current.fields.push_back(Deb822Field{std::string(name), std::string(str::trim(rest)), line_no, {}});
    if (options.keep_raw) {
      while (!rest.empty() && (rest.front() == ' ' || rest.front() == '\t')) rest.remove_prefix(1);
      current.fields.back().raw = std::string(rest);
    }
  }
  return flush();
}

Result<std::vector<Deb822Stanza>> parse_deb822(std::string_view text, std::string_view origin,
                                               const Deb822Options& options) {
  std::vector<Deb822Stanza> out;
  STRATA_TRY_VOID(for_each_deb822_stanza(
      text, origin,
      [&](Deb822Stanza&& s) -> Result<void> {
        out.push_back(std::move(s));
        return {};
      },
      options));
  return out;
}

}  // namespace strata::layer
