// The package set of a root filesystem built from the archive alone
// (`strata build --base scratch`), as mmdebstrap chooses it: the names of
// every package whose candidate is `Essential: yes` (variant essential),
// plus every `Priority: required` one and apt (variant minbase, the
// default). These names are then requested from the resolver with nothing
// installed, so their dependencies come out as apt would pull them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "layer/debian/package.hpp"
#include "util/error.hpp"

namespace strata::layer {

enum class ScratchVariant { kEssential, kMinbase };

Result<ScratchVariant> parse_scratch_variant(std::string_view text);
std::string_view scratch_variant_name(ScratchVariant v);

struct ScratchIndex {
  const std::vector<Package>* packages = nullptr;
  int priority = 500;  // apt pin priority of its Release
};

// Sorted, unique package names to request. A name counts when its candidate
// for `native_arch` (highest pin priority, then highest version; arch:all
// counts as native) is Essential (and, for minbase, when it is required).
std::vector<std::string> scratch_requests(const std::vector<ScratchIndex>& indexes, const std::string& native_arch,
                                          ScratchVariant variant);

}  // namespace strata::layer
