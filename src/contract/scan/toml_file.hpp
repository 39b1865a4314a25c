// Reading a TOML file of the repository with toml++ (Debian's
// libtomlplusplus-dev): parse errors and oversize files become contract
// warnings naming the file and line, never exceptions. Also small typed
// accessors that treat a missing or mistyped key as absent, because
// manifests in the wild carry every kind of unknown field.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "contract/scan/scan_context.hpp"

namespace toml {
inline namespace v3 {
class table;
class node;
}  // namespace v3
}  // namespace toml

namespace strata::contract {

// A parsed TOML document; empty when the file could not be read or parsed.
class TomlFile {
 public:
  static TomlFile read(ScanContext& ctx, const std::string& rel);
  TomlFile();
  ~TomlFile();
  TomlFile(TomlFile&&) noexcept;
  TomlFile& operator=(TomlFile&&) noexcept;

  bool ok() const;
  // The string at a dotted path ("project.requires-python"); nullopt when
  // absent or not a string.
  std::optional<std::string> string(std::string_view dotted) const;
  // The boolean at a dotted path; nullopt when absent or not a boolean.
  std::optional<bool> boolean(std::string_view dotted) const;
  // Keys of the table at a dotted path ("" = root).
  std::vector<std::string> keys(std::string_view dotted) const;
  // Strings of an array at a dotted path.
  std::vector<std::string> strings(std::string_view dotted) const;
  // For arrays of tables ([[tool.uv.index]]): field `key` of each element.
  std::vector<std::string> array_field(std::string_view dotted, std::string_view key) const;
  // The value at a path as text (strings verbatim, integers in decimal,
  // inline tables' "version" key), for version fields that take both forms.
  std::optional<std::string> version_like(std::string_view dotted) const;
  bool has(std::string_view dotted) const;

 private:
  const toml::node* at(std::string_view dotted) const;
  toml::table* table_ = nullptr;
};

}  // namespace strata::contract
