#!/usr/bin/env bash
# plan and provision-hit cost (issue 13), as ratios against one `strata
# build` cache hit of the same overlay: the toolchain fixture archive
# (testdata/toolchain) served on loopback, the overlay test base, the
# c-make-hello fixture repo (needs build-essential). Median of REPS runs each,
# all warm (facts, indexes and the overlay cached).
#   usage: bench/decision.sh [STRATA_BINARY]      (REPS=11 by default)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
STRATA=$(readlink -f "${1:-${STRATA:-strata}}")
REPS=${REPS:-11}
work=$(mktemp -d /tmp/strata-decision-bench-XXXXXX)
server=""
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export STRATA_HOME=$work/home

STRATA_ARCHIVE_DEFS=$here/testdata/toolchain "$here/tests/support/make_archive.sh" build "$work/served/main" > /dev/null
python3 "$here/tests/support/archive_server.py" "$work/served" > "$work/port" &
server=$!
for _ in $(seq 50); do grep -q PORT "$work/port" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/PORT/{print $2}' "$work/port")
echo "deb [signed-by=$work/served/main/keyring.gpg] http://127.0.0.1:$port/main stable main" > "$work/sources.list"
"$here/tests/support/make_overlay_base.sh" "$work/base.tar"
SOURCE_DATE_EPOCH=1700000000 "$STRATA" -q import "$work/base.tar" --dest "oci:$work/img:base" --platform linux/amd64 > /dev/null

base="oci:$work/img:base"
repo=$here/testdata/repos/c-make-hello
common=(--sources "$work/sources.list" --platform linux/amd64)
build=("$STRATA" -q build --base "$base" build-essential --dest "oci:$work/out:dev" "${common[@]}")
plan=("$STRATA" -q plan "$repo" --base "$base" "${common[@]}")
provision=("$STRATA" -q provision "$repo" --base "$base" --dest "oci:$work/out" "${common[@]}")
"${build[@]}" > /dev/null          # build once; every timed build is a hit
"${provision[@]}" > /dev/null      # facts of base and overlay cached

median() {  # command… → median wall seconds of REPS runs
  local times=()
  for _ in $(seq "$REPS"); do
    local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N)
    times+=("$(echo "$t1 - $t0" | bc)")
  done
  printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'
}
hit=$(median "${build[@]}")
p=$(median "${plan[@]}")
pv=$(median "${provision[@]}")
echo "strata decision benchmark: $(nproc) cores, median of $REPS, toolchain fixture archive on loopback"
printf '%-40s %8s %8s\n' measure seconds "x build hit"
printf '%-40s %8.3f %8s\n' "build cache hit (build-essential)" "$hit" "1.00"
printf '%-40s %8.3f %8.2f\n' "plan c-make-hello" "$p" "$(echo "$p / $hit" | bc -l)"
printf '%-40s %8.3f %8.2f\n' "provision c-make-hello (hit)" "$pv" "$(echo "$pv / $hit" | bc -l)"
