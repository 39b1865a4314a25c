#!/usr/bin/env bash
# The main job (scripts/demo.sh) builds only what it runs, the strata binary,
# and scripts/test.sh still builds everything. Runs copies of the scripts
# with cmake, ninja, ctest, setup and fuzz stubbed (they log their
# arguments), then checks in the real build directory that the `strata`
# target compiles nothing of the test suite.
#   main_job_test.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
real_build=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "main_job_test: $*" >&2; exit 1; }

mkdir -p "$work/root/scripts" "$work/bin" "$work/build/src/cli"
cp "$src"/scripts/{demo,build,test}.sh "$work/root/scripts/"
printf '#!/bin/sh\n' > "$work/root/scripts/setup.sh"
printf '#!/bin/sh\necho "fuzz $*" >> "%s/log"\n' "$work" > "$work/root/scripts/fuzz.sh"
for tool in cmake ninja ctest; do
  printf '#!/bin/sh\necho "%s $*" >> "%s/log"\n' "$tool" "$work" > "$work/bin/$tool"
done
printf '#!/bin/sh\necho "strata $*" >> "%s/log"\necho local:strata/x@sha256:0\n' "$work" > "$work/build/src/cli/strata"
chmod +x "$work"/root/scripts/*.sh "$work"/bin/* "$work/build/src/cli/strata"

mkdir -p "$work/root/examples/pnpm-monorepo"
cp "$src/examples/pnpm-monorepo/package.json" "$work/root/examples/pnpm-monorepo/"
out=$(PATH="$work/bin:$PATH" BUILD_DIR="$work/build" STRATA_BUILD_JOBS=2 STRATA_DEMO_RUN=0 \
  STRATA_DEMO_LOG="$work/demo.log" bash "$work/root/scripts/demo.sh")
grep -qx "local:strata/x@sha256:0" <<< "$out" || fail "demo.sh did not print the image reference: $out"
grep -qx "ninja -C $work/build -j 2 strata" "$work/log" || fail "demo.sh does not build the strata target alone: $(cat "$work/log")"
repo="$work/root/examples/pnpm-monorepo"
grep -qx "strata plan --repo $repo --base scratch --toolchain-source node=npm" "$work/log" \
  || fail "demo.sh does not plan the example repository: $(cat "$work/log")"
grep -qx "strata provision --repo $repo --base scratch --toolchain-source node=npm --dest local:strata/demo:latest" \
  "$work/log" || fail "demo.sh does not run the main job: $(cat "$work/log")"

: > "$work/log"
PATH="$work/bin:$PATH" BUILD_DIR="$work/build" STRATA_BUILD_JOBS=2 bash "$work/root/scripts/test.sh" >/dev/null
grep -qx "ninja -C $work/build -j 2" "$work/log" || fail "test.sh does not build everything: $(cat "$work/log")"
grep -q '^cmake .*-DSTRATA_TESTS=ON' "$work/log" || fail "test.sh does not ask for the test suite: $(cat "$work/log")"
grep -q '^ctest ' "$work/log" || fail "test.sh does not run ctest"

# In the real build tree: the strata target's inputs hold no test source. A
# unity build's inputs are its batch files: the sources are what they include.
sources_of() {
  local list; list=$(ninja -C "$real_build" -t inputs "$1")
  grep -v '/Unity/unity_[0-9]*_cxx\.cxx$' <<< "$list" || true
  grep '/Unity/unity_[0-9]*_cxx\.cxx$' <<< "$list" | while read -r batch; do
    case "$batch" in /*) ;; *) batch=$real_build/$batch ;; esac
    sed -n 's/^#include "\(.*\)"$/\1/p' "$batch"
  done
}
inputs=$(sources_of strata)
if grep -q "^$src/tests/\|^tests/" <<< "$inputs"; then
  fail "the strata target depends on test sources: $(grep "tests/" <<< "$inputs" | head -3)"
fi
all=$(sources_of all)
grep -q "^$src/tests/" <<< "$all" || fail "the check would not see a test source"

grep -q "^$src/src/cli/main.cpp$" <<< "$inputs" || fail "ninja -t inputs strata lists no main.cpp"
echo "main_job_test: demo.sh builds strata alone; test.sh builds everything"
