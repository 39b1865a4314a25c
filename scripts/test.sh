#!/usr/bin/env bash
# The whole test suite on a fresh Debian 12 machine as root: installs what the
# tests need (apt-get), builds with -Werror, and runs every test tier except
# the opt-in live tier (STRATA_LIVE=1 adds it), after running each fuzz
# target briefly and the unit tier under the sanitizers (ASan+UBSan).
# Servers (registries, archive, token server, fault proxy) are started by the
# tests themselves on loopback ports and stopped by PID.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tier=test
[ -n "${STRATA_LIVE:-}" ] && tier=live
"$root/scripts/setup.sh" "$tier"
# Everything, the test suite included, whatever an earlier configure chose.
CI=${CI:-1} STRATA_TARGETS= "$root/scripts/build.sh" -DSTRATA_TESTS=ON
cd "${BUILD_DIR:-$root/build}"
exclude=(-LE live)
[ -n "${STRATA_LIVE:-}" ] && exclude=()
# Every fuzz target briefly, under ASan+UBSan (longer runs: FUZZ_SECONDS=600 scripts/fuzz.sh).
sanitize=${FUZZ_BUILD_DIR:-$root/build-fuzz}
FUZZ_TESTS=ON FUZZ_SECONDS=${FUZZ_SECONDS:-10} "$root/scripts/fuzz.sh"
# The unit tier (hermetic: no servers) under the same sanitizers, in the fuzz
# targets' build directory, so the libraries are compiled once for both; only
# what the tier runs is built there (the unit_tests target).
ninja -C "$sanitize" -j "${STRATA_BUILD_JOBS:-$(nproc)}" unit_tests
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir "$sanitize" --output-on-failure -j "${STRATA_TEST_JOBS:-2}" --timeout 900 -L unit
ctest --output-on-failure -j "${STRATA_TEST_JOBS:-2}" --timeout 900 "${exclude[@]}"
