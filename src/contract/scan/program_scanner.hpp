// The program scanner: programs the application itself executes at run time,
// read from the repository's own source — Go exec.Command/CommandContext/
// LookPath, Python subprocess.*/os.system/shutil.which and
// os.getenv("X_BINARY", "convert") defaults, Node child_process spawn/exec/
// execFile (only in files that use child_process), Rust Command::new and
// which() — whose program is a string literal (or a same-file constant holding
// one). Each program the `programs` table in toolchains.yaml knows becomes its
// Debian packages in `system_libs.run` with file:line evidence; an unknown
// program is a note. Bounded: test, vendored, example and build-output
// directories and build scripts are skipped, at most RepoLimits::
// max_source_files files of at most max_source_bytes each, 128 MiB in all, are
// read.
#pragma once

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_programs(ScanContext& ctx);
// True for a source file name the program scanner reads (".py", ".js", ".rs"…).
bool program_source_file(std::string_view name);
}  // namespace strata::contract
