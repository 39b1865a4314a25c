// The Node.js ecosystem scanner: package.json files (engines, packageManager,
// devEngines, volta, dependencies, workspaces, pnpm/bun build allowlists),
// .nvmrc/.node-version, registry configuration (.npmrc, .yarnrc(.yml),
// pnpm-workspace.yaml), installed copies under node_modules (implicit
// binding.gyp builds), and the lockfiles (node_lockfiles.cpp). Records facts
// into a ScanContext; classification happens later.
#pragma once

#include <string>
#include <string_view>

#include "contract/scan_context.hpp"

namespace strata::contract {

void scan_node(ScanContext& ctx);

// A Node version as written in .nvmrc, .node-version, volta or
// .tool-versions: aliases (`lts/*`, `lts/iron`, `lts/-1`, `node`) resolve
// through the knowledge base; anything else is an npm range. `note` receives
// how an alias was read.
Result<Range> read_node_version(std::string_view text, const KnowledgeBase& kb, std::string& note);

// Lockfile readers (node_lockfiles.cpp). `rel` is the repo-relative path.
void scan_package_lock(ScanContext& ctx, const std::string& rel);
void scan_pnpm_lock(ScanContext& ctx, const std::string& rel);
void scan_yarn_lock(ScanContext& ctx, const std::string& rel);
void scan_bun_lock(ScanContext& ctx, const std::string& rel);

// Records a lockfile entry for `name@version` when it matters for
// classification (known to the knowledge base, or flagged as building).
void record_locked_package(ScanContext& ctx, const std::string& name, std::string_view version,
                           const Evidence& ev, bool install_script, bool optional = false);

// The directory part of a repo-relative path ("a/b/package.json" → "a/b", "x" → ".").
std::string dir_of(std::string_view rel);
// Joins a repo-relative directory and a name ("." + "x" → "x").
std::string join_rel(std::string_view dir, std::string_view name);

}  // namespace strata::contract
