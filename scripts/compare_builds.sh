#!/usr/bin/env bash
# Builds the same fixture requests with two strata binaries against the same
# served fixture archives (testdata/overlay, testdata/scratch) and the same
# base images, each request in a fresh home, and prints each request's
# digest and key from both; then compares the locks they wrote and
# `strata key`. Exits 1 when anything differs. For refactors that must not
# change a byte strata writes.
#   scripts/compare_builds.sh OLD_STRATA NEW_STRATA [SOURCE_TREE]
set -euo pipefail
old=$1 new=$2 src=${3:-$(cd "$(dirname "$0")/.." && pwd)}
work=$(mktemp -d /tmp/strata-compare-XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for g in "$work"/*/main/gnupg; do GNUPGHOME=$g gpgconf --kill gpg-agent 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

serve() {  # serve NAME DEFS -> writes $work/NAME.list
  local name=$1 defs=$2
  STRATA_ARCHIVE_DEFS=$defs "$src/tests/support/make_archive.sh" build "$work/$name/main" > /dev/null
  python3 "$src/tests/support/archive_server.py" "$work/$name" > "$work/$name.port" &
  pids+=($!)
  for _ in $(seq 50); do grep -q PORT "$work/$name.port" 2>/dev/null && break; sleep 0.1; done
  local port; port=$(awk '{print $2}' "$work/$name.port")
  echo "deb [signed-by=$work/$name/main/keyring.gpg] http://127.0.0.1:$port/main stable main" > "$work/$name.list"
}
serve overlay "$src/testdata/overlay"
serve scratch "$src/testdata/scratch"

# The overlay fixture base (as tests/layer/overlay/overlay_fixture.cpp makes it), and a
# two-platform index of it and a tiny arm64 root (as overlay_build_test's multi_arch_base).
"$src/tests/support/make_overlay_base.sh" "$work/base.tar"
imp() { SOURCE_DATE_EPOCH=1700000000 "$new" -q --home "$work/import-home" import "$1" --dest "$2" --platform "$3" > /dev/null; }
imp "$work/base.tar" "oci:$work/images:base" linux/amd64
r=$work/arm64-root
mkdir -p "$r/usr/bin" "$r/usr/lib" "$r/var/lib/dpkg/info" "$r/etc" && ln -s usr/bin "$r/bin" && ln -s usr/lib "$r/lib"
printf 'Package: base-files\nStatus: install ok installed\nPriority: required\nSection: admin\nMaintainer: strata tests <tests@strata.test>\nArchitecture: arm64\nVersion: 12.4\nDescription: base\n' > "$r/var/lib/dpkg/status"
tar -C "$r" -cf "$work/arm64.tar" .
imp "$work/base.tar" "oci:$work/multi:amd64" linux/amd64
imp "$work/arm64.tar" "oci:$work/multi:arm64" linux/arm64
python3 - "$work/multi" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
index = json.load(open(f"{d}/index.json"))
multi = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json", "manifests": []}
for m in index["manifests"]:
    arch = m["annotations"]["org.opencontainers.image.ref.name"]
    multi["manifests"].append({"mediaType": m["mediaType"], "digest": m["digest"], "size": m["size"],
                               "platform": {"architecture": arch, "os": "linux"}})
b = json.dumps(multi).encode()
h = hashlib.sha256(b).hexdigest()
open(f"{d}/blobs/sha256/{h}", "wb").write(b)
index["manifests"].append({"mediaType": multi["mediaType"], "digest": "sha256:" + h, "size": len(b),
                           "annotations": {"org.opencontainers.image.ref.name": "multi"}})
json.dump(index, open(f"{d}/index.json", "w"))
PY

full="greet hello-static hello-other daemon-user diverted-tool shared-a shared-b"
ob="--base oci:$work/images:base --sources $work/overlay.list --platform linux/amd64"
mb="--base oci:$work/multi:multi --sources $work/overlay.list --platform linux/amd64,linux/arm64"
sb="--base scratch --sources $work/scratch.list --platform linux/amd64"
# name | environment | build arguments (after `build`); LOCK_<name> makes the lock a later request reads
requests=(
  "overlay-gzip||$ob $full --lock-out LOCK"
  "overlay-zstd||$ob $full --compression zstd"
  "overlay-from-lock||--base oci:$work/images:base --lock LOCK:overlay-gzip"
  "overlay-from-lock-zstd||--base oci:$work/images:base --lock LOCK:overlay-gzip --compression zstd"
  "overlay-replaces||$ob shared-c early-shared"
  "overlay-multiarch||$ob libgreet1 libgreet1:i386"
  "overlay-sde|SOURCE_DATE_EPOCH=1600000000|$ob greet hello-static"
  "multi-gzip||$mb libgreet1 shared-a --lock-out LOCK"
  "multi-zstd||$mb libgreet1 shared-a --compression zstd"
  "scratch-gzip|SOURCE_DATE_EPOCH=1700000000|$sb hello-user --lock-out LOCK"
  "scratch-zstd|SOURCE_DATE_EPOCH=1700000000|$sb hello-user --compression zstd"
  "scratch-essential||$sb --variant essential"
  "scratch-from-lock|SOURCE_DATE_EPOCH=1700000000|--base scratch --lock LOCK:scratch-gzip"
)
fail=0
declare -A keys
printf "%-24s %-8s %s\n" request same "digest key cached (old, then new)"
for req in "${requests[@]}"; do
  IFS='|' read -r name env args <<< "$req"
  declare -A digest
  for which in old new; do
    b=${!which}
    a=${args//LOCK:overlay-gzip/$work/$which/overlay-gzip.lock}
    a=${a//LOCK:scratch-gzip/$work/$which/scratch-gzip.lock}
    a=${a//LOCK/$work/$which/$name.lock}
    mkdir -p "$work/$which"
    # A fresh home and destination per request and binary: every image is built, none found.
    out=$(env $env "$b" --json --home "$work/$which/home-$name" build $a --dest "oci:$work/$which/out-$name:x" 2> "$work/$which/$name.err") ||
      { echo "$name: $which failed"; cat "$work/$which/$name.err"; fail=1; continue; }
    digest[$which]=$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["digest"], d["key"], d["cached"])' <<< "$out")
  done
  same=no; [ "${digest[old]:-x}" = "${digest[new]:-y}" ] && same=yes || fail=1
  printf '%-24s %-8s %s\n%-33s %s\n' "$name" "$same" "${digest[old]:-}" "" "${digest[new]:-}"
done
# The locks each binary wrote, byte for byte.
for l in overlay-gzip.lock scratch-gzip.lock multi-gzip.lock.linux-amd64 multi-gzip.lock.linux-arm64; do
  if cmp -s "$work/old/$l" "$work/new/$l"; then echo "lock $l: identical"; else echo "lock $l: DIFFERS"; fail=1; fi
done
# strata key from both binaries.
for which in old new; do
  b=${!which}
  keys[$which]="$("$b" --home "$work/$which/kh" key $ob $full) $("$b" --home "$work/$which/kh" key $sb hello-user)"
done
echo "strata key: ${keys[old]} (old)"
echo "strata key: ${keys[new]} (new)"
[ "${keys[old]}" = "${keys[new]}" ] || fail=1
exit $fail
