#include "oci/http/transport.hpp"

#include <algorithm>
#include <cstring>

#include "util/strings.hpp"

namespace strata::oci::http {
namespace {
bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}
}  // namespace

void Headers::add(std::string name, std::string value) { items_.emplace_back(std::move(name), std::move(value)); }

void Headers::set(std::string name, std::string value) {
  remove(name);
  add(std::move(name), std::move(value));
}

void Headers::remove(std::string_view name) {
  std::erase_if(items_, [&](const auto& kv) { return iequals(kv.first, name); });
}

std::optional<std::string> Headers::get(std::string_view name) const {
  for (const auto& [k, v] : items_)
    if (iequals(k, name)) return v;
  return std::nullopt;
}

std::vector<std::string> Headers::get_all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& [k, v] : items_)
    if (iequals(k, name)) out.push_back(v);
  return out;
}

BodySource body_from_string(std::shared_ptr<const std::string> data) {
  auto pos = std::make_shared<std::size_t>(0);
  BodySource b;
  b.size = static_cast<std::int64_t>(data->size());
  b.read = [data, pos](std::span<std::byte> buf) -> Result<std::size_t> {
    std::size_t n = std::min(buf.size(), data->size() - *pos);
    std::memcpy(buf.data(), data->data() + *pos, n);
    *pos += n;
    return n;
  };
  b.rewind = [pos]() -> Result<void> {
    *pos = 0;
    return {};
  };
  return b;
}

}  // namespace strata::oci::http
