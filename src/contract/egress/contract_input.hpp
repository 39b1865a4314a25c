// Where a policy's contract comes from: a repository scanned now (--repo) or
// a contract file written by `strata contract scan` (--contract, YAML or
// JSON), read by the one contract reader (contract/model/contract_reader:
// bounded, every field checked, the same Contract plan, preflight and
// provision read). Either way the digest is contract_digest: the sha256 of
// the contract's canonical JSON (the bytes `strata contract scan --format
// json` prints), so a repository and the contract file scanned from it carry
// the same digest in the policy header, and a plan names the same one.
#pragma once

#include <filesystem>
#include <string>

#include "contract/model/contract.hpp"
#include "util/error.hpp"

namespace strata::contract::egress {

struct ContractInput {
  Contract contract;
  std::string digest;  // contract_digest(contract): "sha256:<hex>"
};

Result<ContractInput> scan_for_policy(const std::filesystem::path& repo);
Result<ContractInput> read_contract_input(const std::filesystem::path& file);

}  // namespace strata::contract::egress
