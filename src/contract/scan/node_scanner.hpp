// The Node.js ecosystem scanner: package.json files (engines, packageManager,
// devEngines, volta, dependencies, workspaces, pnpm/bun build allowlists),
// .nvmrc/.node-version, registry configuration (.npmrc, .yarnrc(.yml),
// pnpm-workspace.yaml), installed copies under node_modules (implicit
// binding.gyp builds), and the lockfiles (node_lockfiles.cpp). Records facts
// into a ScanContext; classification happens later.
#pragma once

#include <string>
#include <string_view>

#include "contract/scan/scan_context.hpp"

namespace strata::contract {

void scan_node(ScanContext& ctx);

// Lockfile readers (node_lockfiles.cpp). `rel` is the repo-relative path.
void scan_package_lock(ScanContext& ctx, const std::string& rel);
void scan_pnpm_lock(ScanContext& ctx, const std::string& rel);
void scan_yarn_lock(ScanContext& ctx, const std::string& rel);
void scan_bun_lock(ScanContext& ctx, const std::string& rel);

// Records a lockfile entry for `name@version` when it matters for
// classification (known to the knowledge base, or flagged as building).
void record_locked_package(ScanContext& ctx, const std::string& name, std::string_view version,
                           const Evidence& ev, bool install_script, bool optional = false);

}  // namespace strata::contract
