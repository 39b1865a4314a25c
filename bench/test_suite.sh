#!/usr/bin/env bash
# The README's test command as CI runs it, timed by phase: a fresh clone of
# COMMIT (default HEAD) in a temporary directory, no compiler cache
# (CCACHE_DISABLE=1) and an empty test-fixture cache, so every phase pays what
# it pays on a fresh machine (setup finds the packages already installed: run
# it on a machine that has run scripts/setup.sh test once). Prints
# scripts/test.sh's phases (setup, build, tests) with their wall times,
# the CPU time of the whole run, and the total. The log stays in the printed
# directory.
# Usage: bench/test_suite.sh [COMMIT]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
commit=${1:-HEAD}
work=$(mktemp -d /tmp/strata-test-suite-XXXXXX)
chmod 755 "$work"   # squid, running as its own user, reads fixtures below it
git clone -q "$root" "$work/src"
git -C "$work/src" checkout -q "$commit"
echo "bench: $(git -C "$work/src" log -1 --format='%h %s' | cut -c1-80)"
echo "bench: $(nproc) cores, log in $work/log"
start=$(date +%s)
status=0
( cd "$work/src" && CCACHE_DISABLE=1 STRATA_TEST_CACHE="$work/fx" \
    /usr/bin/time -f 'bench: cpu %U s user + %S s system' ./scripts/test.sh ) > "$work/log" 2>&1 || status=$?
end=$(date +%s)
# scripts/test.sh prints "test.sh: PHASE (Ns since start)" as each phase begins.
awk -v total=$((end - start)) '
  /^test\.sh: [a-z]+ \([0-9]+s since start\)$/ {
    t = substr($3, 2) + 0
    if (name != "") printf "bench: %-6s %5d s\n", name, t - last
    name = $2; last = t
  }
  /^bench: cpu / { print }
  END {
    if (name != "" && name != "done") printf "bench: %-6s %5d s (until the end)\n", name, total - last
    printf "bench: total  %5d s\n", total
  }' "$work/log"
grep -E '^(100% tests passed|[0-9]+% tests passed)|tests failed out of' "$work/log" | sed 's/^/bench: /' || true
exit $status
