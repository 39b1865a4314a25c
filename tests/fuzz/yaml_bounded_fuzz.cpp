// Fuzz target: the bounded YAML loader (oci/yaml_load.hpp). What it accepts
// can be walked to the end, within the limits it promises: no more nodes
// than the text can hold plus what aliases may add, no deeper than
// max_depth, no more scalar bytes than the text plus what aliases may add
// (a cycle, or a billion laughs, would break one of them).
#include <cstdint>
#include <string>

#include "oci/yaml_load.hpp"

namespace {

struct Walk {
  std::uint64_t nodes = 0, bytes = 0, node_budget = 0, byte_budget = 0;
  std::size_t max_depth = 0;

  void visit(const YAML::Node& n, std::size_t depth) {
    if (++nodes > node_budget) __builtin_trap();
    if (n.IsScalar()) {
      bytes += n.Scalar().size();
      if (bytes > byte_budget) __builtin_trap();
      return;
    }
    if (!n.IsSequence() && !n.IsMap()) return;
    if (depth + 1 > max_depth) __builtin_trap();
    for (const auto& item : n) {
      if (n.IsMap()) {
        visit(item.first, depth + 1);
        visit(item.second, depth + 1);
      } else {
        visit(item, depth + 1);
      }
    }
  }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  strata::oci::YamlLimits limits;
  limits.max_alias_nodes = 2000;
  limits.max_alias_bytes = 64 << 10;
  limits.max_depth = 16;
  auto doc = strata::oci::load_yaml(text, "fuzz.yaml", limits);
  if (!doc) return 0;
  Walk w;
  // Every node of the text takes at least a byte or two of it ("-\n", "?\n").
  w.node_budget = 4 * size + 16 + limits.max_alias_nodes;
  w.byte_budget = size + limits.max_alias_bytes;
  w.max_depth = limits.max_depth;
  w.visit(*doc, 0);
  return 0;
}
