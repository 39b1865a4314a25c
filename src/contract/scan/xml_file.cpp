#include "contract/scan/xml_file.hpp"

#include <algorithm>

#include "util/strings.hpp"

namespace strata::contract {

bool read_xml(ScanContext& ctx, const std::string& rel, pugi::xml_document& doc) {
  auto text = ctx.fs().read_text(rel);
  if (!text) return false;
  // parse_default without DOCTYPE contents: an internal subset is skipped,
  // never expanded.
  pugi::xml_parse_result r = doc.load_buffer(text->data(), text->size(), pugi::parse_default, pugi::encoding_auto);
  if (r) return true;
  const auto at = std::min<std::size_t>(static_cast<std::size_t>(std::max<std::ptrdiff_t>(r.offset, 0)), text->size());
  const auto line = 1 + std::count(text->begin(), text->begin() + static_cast<std::ptrdiff_t>(at), '\n');
  ctx.warn(rel, std::string("malformed XML at line ") + std::to_string(line) + ": " + r.description() +
                    "; nothing is read from it");
  doc.reset();
  return false;
}

std::string child_text(const pugi::xml_node& node, std::string_view name) {
  for (pugi::xml_node c = node.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element && name == c.name()) return std::string(str::trim(c.text().get()));
  return {};
}

std::vector<pugi::xml_node> descendants(const pugi::xml_node& node, std::string_view name, std::size_t max) {
  // Iterative pre-order walk: a hostile file's depth never reaches the stack.
  std::vector<pugi::xml_node> out;
  pugi::xml_node n = node.first_child();
  while (n && out.size() < max) {
    if (n.type() == pugi::node_element && name == n.name()) out.push_back(n);
    if (n.first_child()) {
      n = n.first_child();
      continue;
    }
    while (n && !n.next_sibling() && n != node) n = n.parent();
    if (!n || n == node) break;
    n = n.next_sibling();
  }
  return out;
}

}  // namespace strata::contract
