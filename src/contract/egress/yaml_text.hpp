// Small pieces the YAML policy formats (openshell, cilium) share: a string
// as a double-quoted YAML scalar, and reading a YAML document bounded in
// nesting, with errors that name the file.
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::contract::egress {

// "api.github.com" → "\"api.github.com\"": a double-quoted YAML scalar that
// reads back as `s`, every code point unsafe_in_policy_text names escaped
// (\x85, \u2028, …: YAML's own escapes, so a reader folds no line and sees
// no break), bytes that are not UTF-8 as \uFFFD.
std::string yaml_quote(std::string_view s);

// `s` as the text of a YAML comment ("# <text>"): one line to every YAML
// reader, at most `max` bytes (output_text.hpp one_line).
std::string yaml_comment(std::string_view s, std::size_t max = 160);

// Parses `text` as one YAML document through oci::load_yaml (aliases and
// nesting bounded); `file` names it in errors.
Result<YAML::Node> load_yaml(std::string_view text, const std::string& file);

// A node's text if it is a scalar, else "" (absent, a sequence, a mapping).
std::string scalar(const YAML::Node& n);

// The keys of a mapping that are not in `known`, as "\"a\", \"b\"" ("" when none).
std::string unknown_keys(const YAML::Node& map, std::initializer_list<std::string_view> known);

}  // namespace strata::contract::egress
