// load_yaml: the one way strata parses YAML it is given (a mirror job, a
// pre-warm config, a lock, a contract, an egress policy, a repository's
// workflows and project.yaml), bounded against documents whose aliases
// expand without end.
//
// yaml-cpp shares an anchored node among its aliases, so parsing a "billion
// laughs" document is cheap; every consumer that walks the tree (converting
// it to JSON, collecting its strings into a contract or a job list) walks
// each alias again, and nine levels of ten aliases are a billion nodes. Ten
// aliases of one 100 KiB string are a megabyte per line of YAML. So the
// document is first read as events (yaml-cpp's Parser), with, per anchor, the
// size of its subtree counted with the aliases inside it expanded: each alias
// adds its anchor's nodes and scalar bytes to a running total, and the
// document is refused once that total passes a limit, before any tree is
// built. An alias to a node it lies inside (`&a [*a]`, which yaml-cpp accepts
// and turns into a cycle no walk ends) is refused, and so is nesting deeper
// than `max_depth` counted with aliases expanded (walks recurse).
//
// Only the first document is read, as YAML::Load reads it. Thread-safe.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

#include "util/error.hpp"

namespace strata::oci {

struct YamlLimits {
  // Nodes aliases add to the document. Anchors in real files (CI templates,
  // compose extensions, lock and policy fragments) expand to hundreds or a
  // few thousand nodes; 100 000 keeps the worst tree a consumer builds from
  // them to tens of MB whatever the document.
  std::uint64_t max_alias_nodes = 100'000;
  // Scalar bytes aliases add: one anchored 100 KiB string aliased 2 000 times
  // is 200 MB in a 210 KB file.
  std::uint64_t max_alias_bytes = std::uint64_t{8} << 20;
  // Collections inside collections, aliases expanded. Documents strata reads
  // nest a dozen levels at most; consumers recurse once per level.
  std::size_t max_depth = 64;
};

// The document `text` holds, or an error whose message starts with `what`
// ("FILE: not valid YAML: …", "FILE: YAML aliases expand to more than
// 100000 nodes (a 'billion laughs' document); refusing it"). An empty `what`
// leaves the prefix out, for a caller that names the file itself (a
// scanner's warning carries it).
Result<YAML::Node> load_yaml(std::string_view text, std::string_view what, const YamlLimits& limits = {});

// Config helpers over a loaded node: `node` is a mapping whose keys are
// all among `keys` ("WHERE: unknown key `x` (expected a, b)"); `key` is a
// non-empty string scalar ("" when absent and not `required`).
Result<void> yaml_known_keys(const YAML::Node& node, std::initializer_list<std::string_view> keys,
                             const std::string& where);
Result<std::string> yaml_text(const YAML::Node& node, const char* key, const std::string& where, bool required);

}  // namespace strata::oci
