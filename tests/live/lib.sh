# Shared by the live-tier scripts (sourced, not run): the opt-in gate, the
# strata binary, apt sources and suite, the work directory, a minbase root
# made by mmdebstrap, and `check NAME COMMAND...`.
#   source lib.sh "$@"   (after setting `needs`: the tools the script uses)
# Env: STRATA_LIVE=1 (required), LIVE_SOURCES (default: the host's
# debian.sources), LIVE_SUITE (bookworm), LIVE_KEEP=DIR (keep/reuse work).
if [ "${STRATA_LIVE:-}" != 1 ]; then
  echo "live tier: set STRATA_LIVE=1 to run (needs deb.debian.org, root and: ${needs:-mmdebstrap})"
  exit 77
fi
live_src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
strata=${1:-${STRATA_BINARY:-$live_src/build/src/cli/strata}}
sources=${LIVE_SOURCES:-/etc/apt/sources.list.d/debian.sources}
suite=${LIVE_SUITE:-bookworm}
[ -x "$strata" ] || { echo "no strata binary at $strata" >&2; exit 1; }
[ -r "$sources" ] || { echo "no apt sources at $sources (set LIVE_SOURCES)" >&2; exit 1; }
for t in ${needs:-mmdebstrap}; do command -v "$t" > /dev/null || { echo "$t is not installed" >&2; exit 1; }; done
if [ -n "${LIVE_KEEP:-}" ]; then work=$LIVE_KEEP; mkdir -p "$work"; else
  work=$(mktemp -d /tmp/strata-live.XXXXXX); trap 'rm -rf "$work"' EXIT; fi
export STRATA_HOME=$work/strata-home

failures=0
check() {  # NAME COMMAND...: run, report
  if "${@:2}" > "$work/check.out" 2>&1; then echo "ok    $1"; else
    echo "FAIL  $1"; sed 's/^/      /' "$work/check.out"; failures=$((failures + 1)); fi
}
now() { date +%s.%N; }
secs() { echo "$1 $2" | awk '{printf "%.1f", $2 - $1}'; }

# minbase_root DIR: mmdebstrap --variant=minbase of the suite into DIR (kept
# when already there); prints its time when it made it.
minbase_root() {
  [ -e "$1/var/lib/dpkg/status" ] && return 0
  rm -rf "$1"
  local t0; t0=$(now)
  mmdebstrap --quiet --variant=minbase --mode=root "$suite" "$1" "$sources" > "$work/mmdebstrap.log" 2>&1 ||
    { cat "$work/mmdebstrap.log" >&2; exit 1; }
  echo "time  mmdebstrap --variant=minbase $suite: $(secs "$t0" "$(now)") s"
}
