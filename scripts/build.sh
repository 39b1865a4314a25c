#!/usr/bin/env bash
# Configures and builds strata into build/ (or $BUILD_DIR). Extra arguments go
# to CMake, e.g. scripts/build.sh -DSTRATA_SANITIZE=ON. STRATA_TARGETS names
# the ninja targets to build (default: all of them, the test suite included),
# e.g. STRATA_TARGETS=strata for the binary alone. A unity build by default
# (STRATA_UNITY=OFF compiles file by file: quicker after a one-file change).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
werror=OFF
[ -n "${CI:-}" ] && werror=ON
read -r -a targets <<< "${STRATA_TARGETS:-}"
cmake -S "$root" -B "$build" -G Ninja -DSTRATA_WERROR=$werror -DCMAKE_UNITY_BUILD="${STRATA_UNITY:-ON}" "$@" >/dev/null
ninja -C "$build" -j "${STRATA_BUILD_JOBS:-$(nproc)}" "${targets[@]}"
