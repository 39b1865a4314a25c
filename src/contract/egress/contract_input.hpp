// Where a policy's contract comes from: a repository scanned now (--repo) or
// a contract file written by `strata contract scan` (--contract, YAML or
// JSON). Either way the digest is the sha256 of the contract's canonical JSON
// (the bytes `strata contract scan --format json` prints), so a repository
// and the contract file scanned from it carry the same digest in the
// policy header. Only the fields a policy needs are read back from a file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include "contract/model/contract.hpp"
#include "util/error.hpp"

namespace strata::contract::egress {

// Contract files larger than this are refused before they are read.
inline constexpr std::uintmax_t kMaxContractFileBytes = 64u << 20;

struct ContractInput {
  Contract contract;   // root, egress_hosts and egress_rejected filled
  std::string digest;  // "sha256:<hex>"
};

Result<ContractInput> scan_for_policy(const std::filesystem::path& repo);
Result<ContractInput> read_contract_file(const std::filesystem::path& file);

}  // namespace strata::contract::egress
