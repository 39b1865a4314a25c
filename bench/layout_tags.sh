#!/usr/bin/env bash
# A layout with many tags (issue 12, case 7): an OCI layout whose index.json
# holds TAGS tagged entries (default 100 000, as a local store collecting
# overlay-<key> tags would), then the time of each operation that reads or
# rewrites index.json: tag (put a manifest under a new tag), resolve
# (inspect a tag), list (tags) and a no-op re-copy. Median of REPS runs.
#
# usage: bench/layout_tags.sh [STRATA]     env: TAGS (100000), REPS (5)
set -euo pipefail
STRATA=${1:-${STRATA:-strata}}
TAGS=${TAGS:-100000}
REPS=${REPS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src="$(cd "$(dirname "$0")/.." && pwd)/testdata/images/hello-umoci"
"$STRATA" --home "$tmp/home" copy "oci:$src:1.0" "oci:$tmp/l:seed" >/dev/null
python3 - "$tmp/l/index.json" "$TAGS" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
idx = json.load(open(path))
seed = idx["manifests"][0]
entries = []
for i in range(n):
    d = dict(seed)
    d["annotations"] = {"org.opencontainers.image.ref.name": "overlay-%064x" % i}
    entries.append(d)
idx["manifests"] = entries + [seed]
open(path, "w").write(json.dumps(idx, separators=(",", ":")))
PY
echo "index.json: $(stat -c %s "$tmp/l/index.json") bytes, $((TAGS + 1)) entries"
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
timeit() {  # label command...
  local label=$1; shift
  for i in $(seq "$REPS"); do
    local t0 t1
    t0=$(date +%s.%N)
    "$@" "$i" >/dev/null
    t1=$(date +%s.%N)
    echo "$t1 - $t0" | bc
  done | median | awk -v l="$label" '{printf "%-28s %.3f s\n", l, $1}'
}
tag() { "$STRATA" --home "$tmp/home" copy "oci:$tmp/l:seed" "oci:$tmp/l:new-$1"; }
resolve() { "$STRATA" --home "$tmp/home" inspect --raw "oci:$tmp/l:overlay-$(printf %064x $((TAGS / 2)))"; }
list() { "$STRATA" --home "$tmp/home" tags "oci:$tmp/l"; }
noop() { "$STRATA" --home "$tmp/home" copy "oci:$tmp/l:seed" "oci:$tmp/l:seed"; }
timeit "tag (put, new tag)" tag
timeit "resolve (inspect a tag)" resolve
timeit "list (tags)" list
timeit "no-op re-copy" noop
