// The Rust scanner: Cargo.toml (rust-version, edition floors, build scripts,
// links, dependencies the knowledge base knows, workspace members),
// rust-toolchain(.toml), Cargo.lock (format floor, -sys crates, registry
// sources; streamed) and .cargo/config.toml registries and source replacement.
#pragma once

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_rust(ScanContext& ctx);
}
