// The Ruby ecosystem scanner: .ruby-version (a pin), the Gemfile's `ruby`
// directive (the support Bundler enforces; literal requirements or
// `file: ".ruby-version"`), its `source` and `gem` lines, and Gemfile.lock
// (RUBY VERSION, BUNDLED WITH → bundler, the locked gems with their platform
// variants, GEM/GIT remotes → egress). Gems with a C extension are
// classified through the knowledge base's `gem` table: a platform gem for
// x86_64-linux in the lock is prebuilt, anything else compiles.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "contract/scan/scan_context.hpp"
#include "util/version_range.hpp"

namespace strata::contract {

void scan_ruby(ScanContext& ctx);

// A RubyGems requirement list ("~> 3.2", ">= 3.1, < 3.4", "3.2.2") as a
// range; `~>` is the pessimistic operator, a bare version is exact.
Result<Range> parse_gem_requirement(std::string_view text);

}  // namespace strata::contract
