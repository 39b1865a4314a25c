// The PHP ecosystem scanner: composer.json (require.php — a Composer
// constraint —, every ext-* of require and require-dev, config.platform.php,
// repositories), composer.lock (platform and platform-dev, platform-overrides,
// each package's require — its php floor and ext-* —, the dist URLs' hosts,
// plugin-api-version → the Composer version) and Dockerfiles that compile
// extensions (docker-php-ext-install, pecl install, install-php-extensions).
// Each extension is routed through the knowledge base's php_extensions
// table: Debian's php8.2-* package beside php8.2-cli, nothing for one
// php8.2-cli has, or — when a Dockerfile compiles it — the -dev libraries
// the compile needs. composer.json files under vendor/ are not read.
#pragma once

#include <string_view>

#include "contract/scan/scan_context.hpp"
#include "util/version_range.hpp"

namespace strata::contract {

void scan_php(ScanContext& ctx);

// A Composer version constraint ("^8.2", ">=8.1 <8.4", "~8.2.0", "8.2.*",
// "^8.1 || ^8.2", "^7.4|^8.0", ">=8.1,<8.4") as a range. Composer's `~8.2`
// is >=8.2 <9 (npm's is <8.3); stability flags (@dev) are dropped.
Result<Range> parse_composer_constraint(std::string_view text);

}  // namespace strata::contract
