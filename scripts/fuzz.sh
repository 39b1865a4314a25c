#!/usr/bin/env bash
# Builds the fuzz targets with ASan+UBSan and runs each one: first over its
# corpus in testdata/fuzz/TARGET/ (regression inputs), then on mutated inputs
# for FUZZ_SECONDS (default 10) seconds, FUZZ_JOBS (default: the cores) at a
# time. A crash fails the run, prints that target's log and leaves the input
# as crash-*.bin in the build directory: add it to the corpus once fixed.
# The build directory (FUZZ_BUILD_DIR, default build-check/) is scripts/test.sh's:
# the fuzz targets link the same sanitized library objects the tests run.
# FUZZ_TESTS=ON|OFF also (un)configures the test suite there.
# Usage: scripts/fuzz.sh [TARGET...]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${FUZZ_BUILD_DIR:-$root/build-check}
seconds=${FUZZ_SECONDS:-10}
jobs=${FUZZ_JOBS:-$(nproc)}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(reference manifest tar debian lock script index docker_manifest mirror contract terminal_text host_name tag_filter version_files prewarm_config bundle_index cache_record yaml_bounded)
tests=()
[ -n "${FUZZ_TESTS:-}" ] && tests=(-DSTRATA_TESTS="$FUZZ_TESTS")
cmake -S "$root" -B "$build" -G Ninja -DSTRATA_FUZZ=ON -DSTRATA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Check \
  -DCMAKE_UNITY_BUILD="${STRATA_UNITY:-ON}" "${tests[@]}" >/dev/null
ninja -C "$build" -j "${STRATA_BUILD_JOBS:-$(nproc)}" $(printf 'fuzz_%s ' "${targets[@]}")
cd "$build"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
run_one() {  # target → its log; exit status is the target's
  "./tests/fuzz/fuzz_$1" -max_total_time="$seconds" "$root/testdata/fuzz/$1" > "$logs/$1.log" 2>&1
}
failed=()
running=0
for t in "${targets[@]}"; do
  echo "fuzz: $t (${seconds}s)"
  run_one "$t" &
  pids[$!]=$t
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n -p done_pid || failed+=("${pids[$done_pid]}")
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n -p done_pid || failed+=("${pids[$done_pid]}")
  running=$((running - 1))
done
for t in "${failed[@]}"; do
  echo "fuzz: $t FAILED:" >&2
  tail -n 60 "$logs/$t.log" >&2
done
[ ${#failed[@]} -eq 0 ] || { echo "fuzz: ${#failed[@]} of ${#targets[@]} targets failed: ${failed[*]}" >&2; exit 1; }
echo "fuzz: all ${#targets[@]} targets ran clean"
