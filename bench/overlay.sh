#!/usr/bin/env bash
# Overlay build benchmark (issue 4): the same packages on the same minbase,
# .debs already local.
#   engine : chroot + apt-get install into a copy of the base, then tar + gzip
#            of the difference (what `RUN apt-get install` + layer export does)
#   new    : strata build on a base it has never seen: no fragments, and the
#            base's layers read and indexed first
#   cold   : strata build, no fragments cached (the base seen before, as in a
#            pipeline building many overlays on one base)
#   warm   : strata build of the same packages into a new destination
#            (no cache hit; every fragment cached)
#   hit    : strata build again into the same destination (cache key hit)
#   floor  : decompressing the same .debs' data members in parallel, measured
#            next to each compression's builds
# Uses the host's Debian archive (network on demand; not for CI). Needs root,
# mmdebstrap, /usr/bin/time.
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
(cd "$work/engine" && find . -xdev -newer .before -not -path './proc/*' -print0 | tar --null --no-recursion -T - -cf - | gzip -6 > "$work/engine.tar.gz")
engine=$(since "$t")
umount "$work/engine/proc" 2>/dev/null || true

# floor: data members of the same .debs, decompressed in parallel
run_floor() {
  local t; t=$(now)
  printf '%s\n' $debs | xargs -P "$(nproc)" -I{} sh -c 'dpkg-deb --fsys-tarfile {} > /dev/null'
  since "$t"
}

run_build() {  # compression dest
  local t; t=$(now)
  "$STRATA" -q --jobs "$(nproc)" build --base "oci:$work/img:base" --lock "$work/lock.yaml" --compression "$1" \
    --dest "oci:$2" "${PACKAGES[@]}" > /dev/null
  since "$t"
}
rm -rf "$work"/out-*  # a reused work directory must not turn builds into cache hits
for c in gzip zstd; do
  rm -rf "$STRATA_HOME/fragments" "$STRATA_HOME/basefs"
  new=$(run_build "$c" "$work/out-$c-new:x")
  rm -rf "$STRATA_HOME/fragments"
  floor=$(run_floor)
  cold=$(run_build "$c" "$work/out-$c-cold:x")
  warm=$(run_build "$c" "$work/out-$c-warm:x")
  hit=$(run_build "$c" "$work/out-$c-warm:x")
  printf '%-5s packages=%s engine=%.2fs new=%.2fs cold=%.2fs warm=%.2fs hit=%.3fs floor=%.2fs  engine/cold=%.1fx engine/warm=%.1fx cold/floor=%.2fx new/floor=%.2fx\n' \
    "$c" "$n" "$engine" "$new" "$cold" "$warm" "$hit" "$floor" "$(echo "$engine/$cold" | bc -l)" \
    "$(echo "$engine/$warm" | bc -l)" "$(echo "$cold/$floor" | bc -l)" "$(echo "$new/$floor" | bc -l)"
done
echo "work directory: $work"
