#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine as root: installs what the
# tests need (apt-get), builds once, and runs every test tier except the
# opt-in live tier (STRATA_LIVE=1 adds it).
# The one build (build-check/, or $BUILD_DIR) is the Check build type with
# ASan+UBSan and -Werror, compiled as a unity build: the libraries, the
# strata binary, every test binary and the fuzz targets share its objects, so
# the code is compiled once and every tier (unit, integration, interop,
# security) runs under the sanitizers. Each fuzz target is a test too (label
# fuzz): its corpus, then FUZZ_SECONDS (default 10) of mutated inputs.
# Servers (registries, archive, token server, fault proxy) are started by the
# tests themselves on loopback ports and stopped by PID.
# Where the time goes, and the command that measures it: docs/benchmarks.md
# ("Test suite").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tier=test
[ -n "${STRATA_LIVE:-}" ] && tier=live
step() { printf 'test.sh: %s (%ss since start)\n' "$1" "$SECONDS" >&2; }
step "setup"
"$root/scripts/setup.sh" "$tier"
build=${BUILD_DIR:-$root/build-check}
step "build"
# Everything, the test suite and the fuzz targets included, whatever an
# earlier configure chose.
CI=${CI:-1} STRATA_TARGETS= BUILD_DIR="$build" "$root/scripts/build.sh" -DSTRATA_TESTS=ON -DSTRATA_FUZZ=ON \
  -DSTRATA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Check -DSTRATA_FUZZ_SECONDS="${FUZZ_SECONDS:-10}"
# A sanitizer report aborts (SIGABRT): the tests and the security tier see a
# crash, never an exit code they might take for a refusal.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# Every tier, the fuzz targets among them (longer fuzz runs, with each crash's
# log: FUZZ_SECONDS=600 scripts/fuzz.sh).
step "tests"
exclude=(-LE live)
[ -n "${STRATA_LIVE:-}" ] && exclude=()
cd "$build"
# One more test than cores: the tests wait on servers, disks and daemons, so
# a third keeps two cores busy (docs/benchmarks.md, "Test suite").
ctest --output-on-failure -j "${STRATA_TEST_JOBS:-$(( $(nproc) + 1 ))}" --timeout 900 "${exclude[@]}"
step "done"
