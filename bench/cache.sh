#!/usr/bin/env bash
# The overlay cache at size (issue 16): a synthetic layout of OVERLAYS
# overlays (each: its manifest, config, one layer of its own, a shared base
# layer, and an overlay-<key>.used record), written directly by Python, so
# no package is built. Then the time of `strata cache ls` over it, and of
# `strata cache gc` over a layout of about BLOBS blobs that evicts half of
# its overlays by --max-size and sweeps their blobs. Median of REPS runs
# (each gc run on a fresh copy).
#
# usage: bench/cache.sh [STRATA]    env: OVERLAYS (1000), BLOBS (10000), REPS (3)
set -euo pipefail
STRATA=${1:-${STRATA:-strata}}
OVERLAYS=${OVERLAYS:-1000}
BLOBS=${BLOBS:-10000}
REPS=${REPS:-3}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make_layout() {  # DIR N: a layout of N overlays, 4 blobs each plus 2 shared
  python3 - "$1" "$2" <<'PY'
import hashlib, json, os, sys, time
d, n = sys.argv[1], int(sys.argv[2])
os.makedirs(d + "/blobs/sha256")
def put(b):
    h = hashlib.sha256(b).hexdigest()
    open(d + "/blobs/sha256/" + h, "wb").write(b)
    return {"digest": "sha256:" + h, "size": len(b)}
def js(o): return json.dumps(o, separators=(",", ":"), sort_keys=True).encode()
base = put(os.urandom(64 << 10)); base["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
empty = put(b"{}"); empty["mediaType"] = "application/vnd.oci.empty.v1+json"
now = int(time.time()) - 30 * 86400
entries = []
for i in range(n):
    layer = put(os.urandom(4096)); layer["mediaType"] = "application/vnd.oci.image.layer.v1.tar+gzip"
    cfg = put(js({"architecture": "amd64", "os": "linux",
                  "rootfs": {"type": "layers", "diff_ids": [base["digest"], layer["digest"]]}}))
    cfg["mediaType"] = "application/vnd.oci.image.config.v1+json"
    m = js({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
            "config": cfg, "layers": [base, layer]})
    md = put(m); md["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
    key = hashlib.sha256(b"key %d" % i).hexdigest()
    used = now + 60 * i
    rec = js({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
              "artifactType": "application/vnd.strata.overlay.use.v1", "config": empty, "layers": [empty],
              "subject": {k: md[k] for k in ("mediaType", "digest", "size")},
              "annotations": {"dev.strata.overlay.last-used": str(used), "dev.strata.overlay.first-used": str(used)}})
    rd = put(rec); rd["mediaType"] = "application/vnd.oci.image.manifest.v1+json"
    entries.append(dict(md, annotations={"org.opencontainers.image.ref.name": "overlay-" + key}))
    entries.append(dict(rd, annotations={"org.opencontainers.image.ref.name": "overlay-" + key + ".used"}))
open(d + "/index.json", "w").write(json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                                              "manifests": entries}))
open(d + "/oci-layout", "w").write('{"imageLayoutVersion":"1.0.0"}')
PY
}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
elapsed() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }

make_layout "$tmp/ls" "$OVERLAYS"
echo "cache ls: $OVERLAYS overlays, $(ls "$tmp/ls/blobs/sha256" | wc -l) blobs"
for i in $(seq "$REPS"); do elapsed "$STRATA" --home "$tmp/home" cache ls --cache "oci:$tmp/ls" --json; done |
  median | awk '{printf "%-34s %.3f s\n", "cache ls --json", $1}'

per=$(( (BLOBS - 2) / 4 ))
make_layout "$tmp/gc0" "$per"
total=$(du -sb "$tmp/gc0/blobs" | cut -f1)
echo "cache gc: $per overlays, $(ls "$tmp/gc0/blobs/sha256" | wc -l) blobs, $total bytes; --max-size half of it"
for mode in "--dry-run" ""; do
  for i in $(seq "$REPS"); do
    rm -rf "$tmp/gc"; cp -a "$tmp/gc0" "$tmp/gc"
    elapsed "$STRATA" --home "$tmp/home" -q cache gc --cache "oci:$tmp/gc" --max-size $((total / 2)) --min-age 0s $mode
  done | median | awk -v l="cache gc ${mode:-(removing)}" '{printf "%-34s %.3f s\n", l, $1}'
done
"$STRATA" --home "$tmp/home" cache gc --cache "oci:$tmp/gc" --min-age 0s 2>&1 >/dev/null | tail -1
echo "after: $(ls "$tmp/gc/blobs/sha256" | wc -l) blobs"
