// The repository's own declarations in `.mac/project.yaml`: egress hosts it
// needs (read-only) and commands its tasks run. Schema in docs/contract.md
// ("Declarations"). This is the one place an egress declaration is judged:
// an entry with a malformed or hostile host (host_name.hpp), a port outside
// 1-65535, access other than read-only, a key it does not know, or a
// host:port declared twice is not granted — it becomes a RejectedEgress
// (and a warning) naming the file and the entry. Unknown top-level keys are
// ignored.
#pragma once

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_project_yaml(ScanContext& ctx);
}
