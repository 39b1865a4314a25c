#include "contract/scan/toml_file.hpp"

#include <toml++/toml.h>

#include "util/strings.hpp"

namespace strata::contract {

TomlFile::TomlFile() = default;
TomlFile::~TomlFile() { delete table_; }
TomlFile::TomlFile(TomlFile&& o) noexcept : table_(std::exchange(o.table_, nullptr)) {}
TomlFile& TomlFile::operator=(TomlFile&& o) noexcept {
  if (this != &o) {
    delete table_;
    table_ = std::exchange(o.table_, nullptr);
  }
  return *this;
}

TomlFile TomlFile::read(ScanContext& ctx, const std::string& rel) {
  TomlFile f;
  auto text = ctx.fs().read_text(rel);
  if (!text) return f;
  try {
    f.table_ = new toml::table(toml::parse(*text, rel));
  } catch (const toml::parse_error& e) {
    ctx.warn(rel, "malformed TOML at line " + std::to_string(e.source().begin.line) + ", not used: " +
                      std::string(e.description()));
  }
  return f;
}

bool TomlFile::ok() const { return table_ != nullptr; }

const toml::node* TomlFile::at(std::string_view dotted) const {
  if (!table_) return nullptr;
  const toml::node* n = table_;
  if (dotted.empty()) return n;
  // Keys themselves may contain dots only when quoted; we never need those.
  for (auto part : str::split(dotted, '.')) {
    const toml::table* t = n->as_table();
    if (!t) return nullptr;
    n = t->get(part);
    if (!n) return nullptr;
  }
  return n;
}

bool TomlFile::has(std::string_view dotted) const { return at(dotted) != nullptr; }

std::optional<std::string> TomlFile::string(std::string_view dotted) const {
  const toml::node* n = at(dotted);
  if (!n) return std::nullopt;
  if (auto s = n->value<std::string>()) return *s;
  return std::nullopt;
}

std::optional<bool> TomlFile::boolean(std::string_view dotted) const {
  const toml::node* n = at(dotted);
  if (!n) return std::nullopt;
  if (auto b = n->value<bool>()) return *b;
  return std::nullopt;
}

std::optional<std::string> TomlFile::version_like(std::string_view dotted) const {
  const toml::node* n = at(dotted);
  if (!n) return std::nullopt;
  if (auto s = n->value<std::string>()) return *s;
  if (auto i = n->value<std::int64_t>()) return std::to_string(*i);
  if (auto d = n->as_floating_point()) {
    // "1.78" written as a bare float: keep what the author meant.
    std::string s = std::to_string(d->get());
    while (s.size() > 1 && s.back() == '0') s.pop_back();
    return s;
  }
  if (const toml::table* t = n->as_table())
    if (auto v = t->get("version"); v && v->value<std::string>()) return *v->value<std::string>();
  return std::nullopt;
}

std::vector<std::string> TomlFile::keys(std::string_view dotted) const {
  std::vector<std::string> out;
  const toml::node* n = at(dotted);
  if (!n || !n->as_table()) return out;
  for (const auto& [k, v] : *n->as_table()) out.emplace_back(k.str());
  return out;
}

std::vector<std::string> TomlFile::strings(std::string_view dotted) const {
  std::vector<std::string> out;
  const toml::node* n = at(dotted);
  if (!n || !n->as_array()) return out;
  for (const auto& e : *n->as_array())
    if (auto s = e.value<std::string>()) out.push_back(*s);
  return out;
}

std::vector<std::string> TomlFile::array_field(std::string_view dotted, std::string_view key) const {
  std::vector<std::string> out;
  const toml::node* n = at(dotted);
  if (!n || !n->as_array()) return out;
  for (const auto& e : *n->as_array())
    if (const toml::table* t = e.as_table())
      if (auto v = t->get(key); v && v->value<std::string>()) out.push_back(*v->value<std::string>());
  return out;
}

}  // namespace strata::contract
