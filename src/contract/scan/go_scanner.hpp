// The Go scanner: go.mod/go.work `go` and `toolchain` lines (matched as
// whole directives, so `godebug` is never taken for `go`), workspaces, cgo
// (`import "C"` in non-test files, with `#cgo pkg-config:` libraries), the
// system files the Go runtime reads in the image (ca-certificates for an
// HTTPS client, tzdata for time.LoadLocation, unless embedded), and the
// default module proxy and checksum database.
#pragma once

#include "contract/scan/scan_context.hpp"

namespace strata::contract {
void scan_go(ScanContext& ctx);
}
