#include "contract/egress/contract_input.hpp"

#include "contract/model/contract_reader.hpp"
#include "contract/scan/scan.hpp"

namespace strata::contract::egress {
namespace {

ContractInput input_of(Contract c) {
  ContractInput in;
  in.digest = contract_digest(c);
  in.contract = std::move(c);
  return in;
}

}  // namespace

Result<ContractInput> scan_for_policy(const std::filesystem::path& repo) {
  STRATA_TRY(auto c, scan_repository(repo));
  return input_of(std::move(c));
}

Result<ContractInput> read_contract_input(const std::filesystem::path& file) {
  STRATA_TRY(auto c, read_contract_file(file));
  return input_of(std::move(c));
}

}  // namespace strata::contract::egress
