// deb822 control-file parsing: the stanza format shared by Release, Packages,
// dpkg status and *.sources files. Strict and bounded, because Packages and
// Release bytes come from the network: every error names the input and line.
//
// Pure functions; thread-safe. Field values keep continuation lines joined
// with '\n' (the leading space of each continuation line removed; a lone "."
// continuation becomes an empty line), so multi-line fields such as SHA256
// lists and Description keep their structure.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/error.hpp"

namespace strata::layer {

struct Deb822Field {
  std::string name;   // as written; lookups are case-insensitive
  std::string value;  // first line trimmed, continuation lines after '\n'
  std::size_t line = 0;
  // With Deb822Options::keep_raw: the value as dpkg stores it, byte for byte
  // — blanks after the colon skipped, continuation lines verbatim (their
  // leading blank, " ." and trailing blanks kept), trailing whitespace of the
  // whole value removed. Empty otherwise.
  std::string raw;
};

struct Deb822Stanza {
  std::vector<Deb822Field> fields;
  std::size_t line = 0;  // line of the first field

  // The field's value, or nullopt. Case-insensitive name match.
  std::optional<std::string_view> get(std::string_view name) const;
  const Deb822Field* find(std::string_view name) const;
};

struct Deb822Options {
  bool allow_comments = false;  // '#' lines (apt *.sources files allow them)
  std::size_t max_line = 1 << 20;  // bytes per physical line
  std::size_t max_fields = 512;    // per stanza
  bool keep_raw = false;           // fill Deb822Field::raw (dpkg status, control files)
};

// Calls `fn` for every stanza in order; stops at the first error (from the
// parser or from `fn`). `origin` names the input in errors ("file:line: …").
Result<void> for_each_deb822_stanza(std::string_view text, std::string_view origin,
                                    const std::function<Result<void>(Deb822Stanza&&)>& fn,
                                    const Deb822Options& options = {});

Result<std::vector<Deb822Stanza>> parse_deb822(std::string_view text, std::string_view origin,
                                               const Deb822Options& options = {});

}  // namespace strata::layer
