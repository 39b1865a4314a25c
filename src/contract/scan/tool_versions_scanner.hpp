// The version-manager scanner: asdf's .tool-versions and mise's mise.toml /
// .mise.toml `[tools]`, mapped onto strata's tool names (nodejs → node,
// golang → go). Node versions go through the same alias table as .nvmrc.
#pragma once

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_tool_versions(ScanContext& ctx);
}
