#!/usr/bin/env bash
# Builds the fuzz targets with ASan+UBSan (build-fuzz/) and runs each one:
# first over its corpus in testdata/fuzz/TARGET/ (regression inputs), then on
# mutated inputs for FUZZ_SECONDS (default 10) seconds. A crash fails the run
# and leaves the input as build-fuzz/crash-*.bin: add it to the corpus once
# fixed. FUZZ_TESTS=ON also configures the test suite in the same directory
# (scripts/test.sh runs the unit tier there, over the same library objects).
# Usage: scripts/fuzz.sh [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${FUZZ_SECONDS:-10}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(reference manifest tar debian lock script index docker_manifest mirror contract terminal_text host_name tag_filter version_files prewarm_config bundle_index cache_record yaml_bounded)
cmake -S "$root" -B "$build" -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_SANITIZE=ON -DSTRATA_TESTS=${FUZZ_TESTS:-OFF} \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
ninja -C "$build" -j "${STRATA_BUILD_JOBS:-$(nproc)}" $(printf 'fuzz_%s ' "${targets[@]}")
cd "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
for t in "${targets[@]}"; do
  echo "fuzz: $t (${seconds}s)"
  "./tests/fuzz/fuzz_$t" -max_total_time="$seconds" "$root/testdata/fuzz/$t"
done
echo "fuzz: all ${#targets[@]} targets ran clean"
