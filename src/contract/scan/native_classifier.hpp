// Native-build classification: turns the per-package signals the scanners
// collected into `none | prebuilt | download | compile` decisions, and adds
// what each decision implies — Debian build/run packages, toolchain commands,
// install-time egress hosts — to the context. The knowledge base wins over
// structural signals (it knows sharp ≥ 0.33 has an install script yet
// compiles nothing); structural signals win over weak ones.
#pragma once

#include <vector>

#include "contract/model/contract.hpp"
#include "contract/scan/scan_context.hpp"

namespace strata::contract {

std::vector<NativePackage> classify_native(ScanContext& ctx);

}  // namespace strata::contract
