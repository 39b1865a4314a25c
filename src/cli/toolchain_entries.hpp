// Toolchain entries of a config (`bundle create --toolchains FILE`, a
// pre-warm config's `toolchains:`) as resolve requests, with the range
// semantics `strata toolchain install TOOL@VERSION` uses: X.Y.Z pins, a line
// (22, 3.12) is its newest release, anything else an npm/semver range; the
// npm source's engines judged by contract's npm ranges.
#pragma once

#include <string>
#include <vector>

#include "layer/toolchain/release.hpp"
#include "layer/toolchain/toolchain_entry.hpp"

namespace strata::cli {

// TOOL@TEXT's want (an error names what TEXT may be).
Result<layer::toolchain::VersionWant> toolchain_want(const std::string& tool, const std::string& text);
// npm's engines: whether `version` is in the semver `range`.
bool npm_range_admits(std::string_view range, std::string_view version);

struct EntryRequest {
  std::string where;  // the entry, with its platform when it names several
  layer::toolchain::ResolveRequest request;
};
// One request per entry and platform (the entry's, else `platforms`, else
// this machine's).
Result<std::vector<EntryRequest>> toolchain_requests(const std::vector<layer::toolchain::ToolchainEntry>& entries,
                                                     const std::vector<std::string>& platforms);

}  // namespace strata::cli
