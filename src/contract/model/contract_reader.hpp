// Reading a contract back: the YAML or JSON that `strata contract scan`
// writes (serialize.hpp) becomes the Contract it was written from, so
// `strata preflight --contract FILE` checks exactly what a scan produced.
// The schema is docs/contract.md; a document of another schema_version, a
// field of the wrong type or an unknown enumeration value is an error naming
// the file and the field. contract_digest names a contract by its bytes.
// Pure functions (read_contract_file reads one bounded file).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "contract/model/contract.hpp"
#include "util/error.hpp"

namespace strata::contract {

// Contracts larger than this are refused before they are read.
inline constexpr std::uint64_t kMaxContractBytes = std::uint64_t{64} << 20;

// Parses a contract document (YAML, of which JSON is a subset). `where`
// names it in errors.
Result<Contract> parse_contract(std::string_view text, std::string_view where);
Result<Contract> read_contract_file(const std::filesystem::path& file);

// "sha256:<hex>" of the contract's canonical JSON (to_json), the identity
// plans and pre-flight reports name.
std::string contract_digest(const Contract& c);

}  // namespace strata::contract
