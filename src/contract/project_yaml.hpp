// The repository's own declarations in `.mac/project.yaml`: egress hosts it
// needs (read-only unless it says otherwise) and commands its tasks run.
// Schema in docs/contract.md ("Declarations"). Unknown keys are ignored.
#pragma once

#include "contract/scan_context.hpp"

namespace strata::contract {
void scan_project_yaml(ScanContext& ctx);
}
