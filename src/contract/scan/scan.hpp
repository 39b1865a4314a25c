// scan_repository: the environment contract of a repository, by reading it.
// Nothing in the repository is executed and nothing is fetched. Each
// ecosystem scanner records facts into one ScanContext; the native-build
// classifier and the floor computation then turn the facts into the
// Contract. Malformed inputs become contract warnings, never errors; the
// only errors are "the directory is not there" and a broken knowledge base.
// Thread-safe (no shared state).
#pragma once

#include <filesystem>

#include "contract/model/contract.hpp"
#include "contract/scan/repo_fs.hpp"
#include "util/error.hpp"

namespace strata::contract {

struct ScanOptions {
  RepoLimits limits;  // defaults: 8 MiB manifests, 256 MiB lockfiles (streamed)
};

Result<Contract> scan_repository(const std::filesystem::path& root, const ScanOptions& options = {});

}  // namespace strata::contract
