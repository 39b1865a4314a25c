// How a repository writes a tool's version, read as a range: Node's aliases
// (`lts/*`, `lts/iron`, `lts/-1`, `node`, `latest`) through the knowledge
// base's runtime_aliases.yaml, a bare version as its release line ("20",
// "3.12", "v20.11.1"), anything else as a range (PEP 440 for Python, npm's
// grammar otherwise). The one reader of .nvmrc, .node-version, volta,
// .tool-versions, mise, image tags and CI matrices.
#pragma once

#include <string>
#include <string_view>

#include "contract/knowledge/knowledge.hpp"
#include "util/version_range.hpp"
#include "util/error.hpp"

namespace strata::contract {

// A Node version: an alias resolves through `kb`; `note` receives how an
// alias was read.
Result<Range> read_node_version(std::string_view text, const KnowledgeBase& kb, std::string& note);

// Any tool's version (Node's through read_node_version).
Result<Range> read_tool_version(const std::string& tool, std::string_view text, const KnowledgeBase& kb,
                                std::string& note);

}  // namespace strata::contract
