#!/usr/bin/env bash
# Overlay build benchmark (issue 4): the same packages on the same minbase,
# .debs already local.
#   engine : chroot + apt-get install into a copy of the base, then tar + gzip
#            of the difference (what `RUN apt-get install` + layer export does):
#            every path whose inode changed (ctime: dpkg keeps the packages'
#            mtimes, so -newer would miss almost all of them). The script
#            checks that this tar holds within 5 % of the bytes of strata's
#            layer, so the baseline cannot silently stop doing the work.
#            apt's own caches, lists and logs are left out, as the usual
#            `apt-get clean && rm -rf /var/lib/apt/lists/*` of such a RUN
#            leaves them out (pkgcache.bin and the .debs are 112 MB).
#   new    : strata build on a base it has never seen: no fragments, and the
#            base's layers read and indexed first
#   cold   : strata build, no fragments cached (the base seen before, as in a
#            pipeline building many overlays on one base)
#   warm   : strata build of the same packages into a new destination
#            (no cache hit; every fragment cached)
#   hit    : strata build again into the same destination (cache key hit)
#   typed  : cold, warm and hit again as users type it: no --lock, so the
#            resolve is included (indexes cached from the first resolve)
#   floor  : decompressing the same .debs' data members in parallel, measured
#            next to each compression's builds; for gzip also floor+deflate
#            (libdeflate -5 alone over the layer's tar, one piece per core),
#            for zstd floor+zstd, the floor plus zstd -3 alone
# Uses the host's Debian archive (network on demand; not for CI). Needs root,
# mmdebstrap, libdeflate-gzip (libdeflate-tools), zstd, /usr/bin/time.
#
# usage: bench/overlay.sh [STRATA_BINARY] [PACKAGES...]   (default: build-essential libpq-dev)
set -euo pipefail
STRATA=$(readlink -f "${1:-${STRATA:-strata}}")
shift || true
PACKAGES=("$@")
[ ${#PACKAGES[@]} -gt 0 ] || PACKAGES=(build-essential libpq-dev)
SUITE=${SUITE:-bookworm}
work=${WORK:-$(mktemp -d /var/tmp/strata-bench-XXXXXX)}
mkdir -p "$work"
export STRATA_HOME=$work/home
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

if [ ! -f "$work/base.tar" ]; then
  mmdebstrap --quiet --variant=minbase --mode=root "$SUITE" "$work/base.tar"
fi
SOURCE_DATE_EPOCH=1700000000 "$STRATA" -q import "$work/base.tar" --dest "oci:$work/img:base" --platform linux/amd64 > /dev/null
# Resolve and fetch once (not timed): the .debs are local for every contender.
"$STRATA" -q resolve --base "oci:$work/img:base" --platform linux/amd64 --lock-out "$work/lock.yaml" "${PACKAGES[@]}" > /dev/null
"$STRATA" -q fetch --lock "$work/lock.yaml" > /dev/null
n=$(awk '$1=="-" && $2=="name:"' "$work/lock.yaml" | wc -l)
debs=$(awk '$1=="sha256:"{print $2}' "$work/lock.yaml" | tr -d "'\"" | sed "s#^#$STRATA_HOME/debs/sha256/#")

# engine way
rm -rf "$work/engine" && mkdir -p "$work/engine"
tar -C "$work/engine" -xf "$work/base.tar"
mkdir -p "$work/engine/var/cache/apt/archives"
for d in $debs; do ln -f "$d" "$work/engine/var/cache/apt/archives/$(basename "$d").deb" 2>/dev/null || cp "$d" "$work/engine/var/cache/apt/archives/"; done
mount -t proc proc "$work/engine/proc" 2>/dev/null || true
chroot "$work/engine" apt-get -qq update > /dev/null
touch "$work/engine/.before"
t=$(now)
chroot "$work/engine" env DEBIAN_FRONTEND=noninteractive apt-get -qq install -y --no-install-recommends "${PACKAGES[@]}" > /dev/null
(cd "$work/engine" && find . -xdev -cnewer .before -not -path './proc/*' -not -path './.before' \
    -not -path './var/cache/apt/*' -not -path './var/lib/apt/lists/*' -not -path './var/log/*' -print0 |
  tar --null --no-recursion -T - -cf - | tee >(wc -c > "$work/engine.bytes") | gzip -6 > "$work/engine.tar.gz")
engine=$(since "$t")
umount "$work/engine/proc" 2>/dev/null || true
engine_paths=$(cd "$work/engine" && find . -xdev -cnewer .before -not -path './proc/*' -not -path './.before' | wc -l)

# The overlay layer (the top one) of a strata build in layout DIR, tag x:
# "BLOB-PATH MEDIA-TYPE".
top_layer() {
  python3 - "$1" <<'PY'
import json, os, sys
d = sys.argv[1]
def blob(digest): return os.path.join(d, "blobs", *digest.split(":"))
top = next(m for m in json.load(open(os.path.join(d, "index.json")))["manifests"]
           if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == "x")
m = json.load(open(blob(top["digest"])))
if "manifests" in m: m = json.load(open(blob(m["manifests"][0]["digest"])))
print(blob(m["layers"][-1]["digest"]), m["layers"][-1]["mediaType"])
PY
}
# That layer as plain tar on stdout.
layer_tar() {
  local path type; read -r path type < <(top_layer "$1")
  case $type in *+gzip) gzip -dc "$path" ;; *+zstd) zstd -dcq "$path" ;; *) cat "$path" ;; esac
}

# floor: data members of the same .debs, decompressed in parallel
run_floor() {
  local t; t=$(now)
  printf '%s\n' $debs | xargs -P "$(nproc)" -I{} sh -c 'dpkg-deb --fsys-tarfile {} > /dev/null'
  since "$t"
}

run_build() {  # compression dest [--lock FILE]
  local c=$1 dest=$2 t; shift 2; t=$(now)
  "$STRATA" -q --jobs "$(nproc)" build --base "oci:$work/img:base" "$@" --compression "$c" \
    --dest "oci:$dest" "${PACKAGES[@]}" > /dev/null
  since "$t"
}
rm -rf "$work"/out-*  # a reused work directory must not turn builds into cache hits
for c in gzip zstd none; do
  rm -rf "$STRATA_HOME/fragments" "$STRATA_HOME/basefs"
  new=$(run_build "$c" "$work/out-$c-new:x" --lock "$work/lock.yaml")
  rm -rf "$STRATA_HOME/fragments"
  floor=$(run_floor)
  cold=$(run_build "$c" "$work/out-$c-cold:x" --lock "$work/lock.yaml")
  warm=$(run_build "$c" "$work/out-$c-warm:x" --lock "$work/lock.yaml")
  hit=$(run_build "$c" "$work/out-$c-warm:x" --lock "$work/lock.yaml")
  rm -rf "$STRATA_HOME/fragments"
  tcold=$(run_build "$c" "$work/out-$c-tcold:x")
  twarm=$(run_build "$c" "$work/out-$c-twarm:x")
  thit=$(run_build "$c" "$work/out-$c-twarm:x")
  bytes=$(layer_tar "$work/out-$c-cold" | wc -c)
  extra=""
  if [ "$c" = gzip ]; then
    # floor + libdeflate level 5 alone (strata's gzip) over the same tar, cut
    # into as many pieces as there are cores and compressed in parallel: the
    # least a gzip layer can cost on top of reading the packages.
    tarfile=$work/layer.tar
    layer_tar "$work/out-gzip-cold" > "$tarfile"
    rm -rf "$work/pieces" && mkdir -p "$work/pieces" && split -n "$(nproc)" "$tarfile" "$work/pieces/p"
    t=$(now); ls "$work"/pieces/p* | xargs -P "$(nproc)" -I{} sh -c 'libdeflate-gzip -5 -c {} > /dev/null'; z=$(since "$t")
    rm -rf "$tarfile" "$work/pieces"
    zfloor=$(echo "$floor + $z" | bc -l)
    extra=$(printf ' floor+deflate=%.2fs cold/(floor+deflate)=%.2fx' "$zfloor" "$(echo "$cold/$zfloor" | bc -l)")
  fi
  if [ "$c" = zstd ]; then
    # floor + zstd -3 alone over the same tar, with the same threads.
    tarfile=$work/layer.tar
    layer_tar "$work/out-zstd-cold" > "$tarfile"
    t=$(now); zstd -3 -q -T"$(nproc)" -c "$tarfile" > /dev/null; z=$(since "$t"); rm -f "$tarfile"
    zfloor=$(echo "$floor + $z" | bc -l)
    extra=$(printf ' floor+zstd=%.2fs cold/(floor+zstd)=%.2fx' "$zfloor" "$(echo "$cold/$zfloor" | bc -l)")
  fi
  printf '%-5s packages=%s engine=%.2fs new=%.2fs cold=%.2fs warm=%.2fs hit=%.3fs typed: cold=%.2fs warm=%.2fs hit=%.3fs floor=%.2fs  engine/cold=%.1fx engine/warm=%.1fx engine/typed-cold=%.1fx engine/typed-warm=%.1fx cold/floor=%.2fx new/floor=%.2fx%s\n' \
    "$c" "$n" "$engine" "$new" "$cold" "$warm" "$hit" "$tcold" "$twarm" "$thit" "$floor" "$(echo "$engine/$cold" | bc -l)" \
    "$(echo "$engine/$warm" | bc -l)" "$(echo "$engine/$tcold" | bc -l)" "$(echo "$engine/$twarm" | bc -l)" \
    "$(echo "$cold/$floor" | bc -l)" "$(echo "$new/$floor" | bc -l)" "$extra"
done
ebytes=$(cat "$work/engine.bytes")
echo "bytes: engine tar $ebytes ($engine_paths paths), strata layer $bytes"
# The baseline must archive what strata's layer holds (within 5 %).
python3 -c "import sys; e, s = $ebytes, $bytes; r = abs(e - s) / s; print(f'engine/strata bytes: {e/s:.3f}'); sys.exit(0 if r <= 0.05 else 1)" ||
  { echo "the engine baseline archived $ebytes bytes against strata's $bytes: not the same work; fix the baseline" >&2; exit 1; }
echo "work directory: $work"
