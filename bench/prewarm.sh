#!/usr/bin/env bash
# Pre-warm benchmark (issue 16): ten overlays that share most of their
# packages (libpq-dev and build-essential's compilers, each with one package
# of its own), on one bookworm minbase, from the host's Debian archive.
#   loop    : ten `strata build` runs one after another, one home (what a
#             shell-loop pre-warm job does)
#   prewarm : one `strata cache prewarm` over a config of the same ten
#   hit     : the same prewarm again (every key warm: one lookup each)
# Each contender starts from an empty home and an empty cache (the base
# imported, nothing resolved or fetched). The script checks that both ways
# made the same ten keys with the same digests, so they did the same work.
# Needs root, mmdebstrap; network on demand (not for CI).
#
# usage: bench/prewarm.sh [STRATA_BINARY]
set -euo pipefail
STRATA=$(readlink -f "${1:-${STRATA:-strata}}")
SUITE=${SUITE:-bookworm}
work=${WORK:-$(mktemp -d /var/tmp/strata-prewarm-XXXXXX)}
mkdir -p "$work"
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
COMMON=(libpq-dev gcc)
OWN=(curl git jq make zlib1g-dev libssl-dev libsqlite3-dev libffi-dev libxml2-dev libyaml-dev)

[ -f "$work/base.tar" ] || mmdebstrap --quiet --variant=minbase --mode=root "$SUITE" "$work/base.tar"
rm -rf "$work/img" "$work"/home-* "$work"/cache-*
STRATA_HOME=$work/home-import SOURCE_DATE_EPOCH=1700000000 "$STRATA" -q import "$work/base.tar" \
  --dest "oci:$work/img:base" --platform linux/amd64 > /dev/null
base="oci:$work/img:base"

# loop: ten builds, one home, one cache layout.
t=$(now)
for p in "${OWN[@]}"; do
  STRATA_HOME=$work/home-loop "$STRATA" -q build --base "$base" --platform linux/amd64 "${COMMON[@]}" "$p" \
    --dest "oci:$work/cache-loop" > /dev/null
done
loop=$(since "$t")

# prewarm: the same ten in one config.
{
  echo "cache: oci:$work/cache-prewarm"
  echo "platforms: [linux/amd64]"
  echo "overlays:"
  for p in "${OWN[@]}"; do echo "  - {base: \"$base\", packages: [$(IFS=,; echo "${COMMON[*]}"), $p]}"; done
} > "$work/prewarm.yaml"
t=$(now)
STRATA_HOME=$work/home-prewarm "$STRATA" -q --json cache prewarm --config "$work/prewarm.yaml" > "$work/prewarm.json"
prewarm=$(since "$t")
t=$(now)
STRATA_HOME=$work/home-prewarm "$STRATA" -q --json cache prewarm --config "$work/prewarm.yaml" > "$work/hit.json"
hit=$(since "$t")

# The same work: both caches hold the same ten overlay tags with the same digests.
keys() { STRATA_HOME=$work/home-ls "$STRATA" -q cache ls --cache "oci:$1" --json |
  python3 -c 'import json,sys; d=json.load(sys.stdin); print("\n".join(sorted(o["digest"]+" "+",".join(sorted(o["keys"])) for o in d["overlays"])))'; }
keys "$work/cache-loop" > "$work/loop.keys"
keys "$work/cache-prewarm" > "$work/prewarm.keys"
[ "$(wc -l < "$work/loop.keys")" -eq ${#OWN[@]} ] || { echo "loop made $(wc -l < "$work/loop.keys") overlays, not ${#OWN[@]}" >&2; exit 1; }
diff -u "$work/loop.keys" "$work/prewarm.keys" >&2 || { echo "prewarm and the loop made different overlays" >&2; exit 1; }
python3 -c 'import json,sys; s=[o["state"] for o in json.load(open(sys.argv[1]))["overlays"]]; sys.exit(0 if set(s)=={"warm"} else 1)' \
  "$work/hit.json" || { echo "the second prewarm was not all warm" >&2; exit 1; }

printf 'overlays=%d loop=%.2fs prewarm=%.2fs hit=%.3fs  loop/prewarm=%.2fx\n' "${#OWN[@]}" "$loop" "$prewarm" "$hit" \
  "$(echo "$loop/$prewarm" | bc -l)"
echo "work directory: $work"
