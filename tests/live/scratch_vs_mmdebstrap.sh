#!/usr/bin/env bash
# Live tier (opt-in: STRATA_LIVE=1; ctest label `live`): `strata build --base
# scratch` of bookworm from the host's Debian archive, checked against
# `mmdebstrap --variant=minbase` of the same suite and sources:
#   1. minbase: the package set (names, versions, architectures) equals
#      mmdebstrap's; unpacked with umoci and entered with chroot,
#      `id root`, `dpkg -l`, `apt-get --version` and `apt-get install -s hello`
#      work; the file lists are compared (modes, owners, link targets; logs,
#      caches, /dev and dpkg/apt lock files ignored) and every difference is
#      printed (docs/format/scratch.md explains them);
#   2. with build-essential: a C and a C++ program compile and run.
# Timings of both tools are printed (the .debs are local for the second
# strata build; mmdebstrap downloads its own).
#   scratch_vs_mmdebstrap.sh [STRATA_BINARY]
# Env: STRATA_LIVE=1 (required), LIVE_SOURCES (default: the host's
# debian.sources), LIVE_SUITE (bookworm), LIVE_KEEP=DIR (keep/reuse work).
set -euo pipefail
needs="mmdebstrap umoci chroot"
source "$(dirname "$0")/lib.sh"
layout=$work/images

# mmdebstrap's root (timed when made here).
mm=$work/mmdebstrap
minbase_root "$mm"

# strata: cold (indexes and .debs downloaded), then warm (.debs local, new home for fragments).
t0=$(now)
"$strata" -q build --base scratch --sources "$sources" --platform linux/amd64 \
  --dest "oci:$layout:minbase" --lock-out "$work/minbase.lock" > "$work/minbase.ref" 2> "$work/strata.err" ||
  { cat "$work/strata.err" >&2; exit 1; }
echo "time  strata build --base scratch (first build in this home): $(secs "$t0" "$(now)") s -> $(cat "$work/minbase.ref")"
rm -rf "$STRATA_HOME/fragments" "$layout.warm"
t0=$(now)
"$strata" -q build --base scratch --lock "$work/minbase.lock" --dest "oci:$layout.warm:minbase" > /dev/null
echo "time  strata build --base scratch (.debs local, fragments converted): $(secs "$t0" "$(now)") s"
rm -rf "$layout.warm"
t0=$(now)
"$strata" -q build --base scratch --lock "$work/minbase.lock" --dest "oci:$layout.warm:minbase" > /dev/null
echo "time  strata build --base scratch (fragments cached): $(secs "$t0" "$(now)") s"
grep -i 'not reproduced' "$work/strata.err" | sed 's/^/note  /' || true

# 1. Package set.
dpkg-query --admindir="$mm/var/lib/dpkg" -W -f='${Package} ${Version} ${Architecture}\n' | sort > "$work/mm.pkgs"
# Unpack and enter.
rm -rf "$work/bundle"
umoci unpack --rootless --image "$layout:minbase" "$work/bundle" > /dev/null
r=$work/bundle/rootfs
dpkg-query --admindir="$r/var/lib/dpkg" -W -f='${Package} ${Version} ${Architecture}\n' | sort > "$work/strata.pkgs"
check "package set equals mmdebstrap's ($(wc -l < "$work/mm.pkgs") packages)" diff "$work/mm.pkgs" "$work/strata.pkgs"
cp /etc/resolv.conf "$r/etc/resolv.conf" 2> /dev/null || true
check "chroot: id root" chroot "$r" /bin/bash -c 'id root | grep -q "uid=0(root) gid=0(root)"'
check "chroot: dpkg -l lists mmdebstrap's packages" bash -c \
  "chroot '$r' dpkg-query -W -f='\${Package} \${Version} \${Architecture}\n' | sort | diff '$work/mm.pkgs' -"
check "chroot: dpkg --audit is clean" bash -c "[ -z \"\$(chroot '$r' dpkg --audit)\" ]"
check "chroot: apt-get --version" chroot "$r" apt-get --version
check "chroot: sh is dash" bash -c "[ \"\$(readlink '$r/usr/bin/sh')\" = dash ]"
# apt needs /dev/null; a runtime provides /dev, a bare chroot needs it bound.
mkdir -p "$r/dev" && mount --bind /dev "$r/dev"
check "chroot: apt-get update && apt-get install -s hello" chroot "$r" /bin/bash -c \
  'apt-get -qq update && apt-get install -s hello | grep -q "^Inst hello "'
umount "$r/dev"

# File list comparison: path type mode uid gid target (logs, caches, /dev, locks, apt lists ignored).
listing() {
  (cd "$1" && find . -mindepth 1 \( -path ./dev -o -path ./proc -o -path ./sys -o -path ./var/log -o -path ./var/cache \
      -o -path ./var/lib/apt/lists -o -path ./run \) -prune -o -printf '%p %y %m %U %G %l\n' |
    grep -v -E '^\./(var/lib/dpkg/(lock|lock-frontend|triggers/Lock|status-old|diversions-old|available)|etc/(\.pwd\.lock|passwd-|group-|shadow-|gshadow-)) ' |
    sed 's|^\./||' | sort)
}
listing "$mm" > "$work/mm.files"
# umoci --rootless maps owners to the caller: read owners from the layer instead.
listing "$r" > "$work/strata.files.raw"
"$strata" inspect "oci:$layout:minbase" > /dev/null
python3 - "$layout" "$work/strata.files.raw" > "$work/strata.files" <<'PY'
import json, sys, tarfile, os
layout, raw = sys.argv[1], sys.argv[2]
idx = json.load(open(os.path.join(layout, "index.json")))
m = json.load(open(os.path.join(layout, "blobs", *idx["manifests"][0]["digest"].split(":"))))
owners = {}
for l in m["layers"]:
    with tarfile.open(os.path.join(layout, "blobs", *l["digest"].split(":"))) as t:
        for e in t:
            owners[e.name.rstrip("/").removeprefix("./")] = (e.uid, e.gid)
for line in open(raw):
    f = line.rstrip("\n").split(" ", 5)
    if f[0] in owners:
        f[3], f[4] = str(owners[f[0]][0]), str(owners[f[0]][1])
    print(" ".join(f))
PY
diff "$work/mm.files" "$work/strata.files" > "$work/files.diff" || true
only_mm=$(grep -c '^<' "$work/files.diff" || true); only_strata=$(grep -c '^>' "$work/files.diff" || true)
echo "files: mmdebstrap $(wc -l < "$work/mm.files"), strata $(wc -l < "$work/strata.files"); differing lines: $only_mm mmdebstrap-only, $only_strata strata-only"
grep -E '^[<>]' "$work/files.diff" | sed 's/^/diff  /'

# 2. build-essential: compile and run C and C++.
"$strata" -q build --base scratch build-essential --sources "$sources" --platform linux/amd64 \
  --dest "oci:$layout:build-essential" > "$work/be.ref"
rm -rf "$work/be"
umoci unpack --rootless --image "$layout:build-essential" "$work/be" > /dev/null
b=$work/be/rootfs
printf '#include <stdio.h>\nint main(void){puts("hello from C");return 0;}\n' > "$b/tmp/t.c"
printf '#include <iostream>\nint main(){std::cout<<"hello from C++"<<std::endl;}\n' > "$b/tmp/t.cc"
check "build-essential: cc compiles and runs C" bash -c \
  "chroot '$b' /bin/bash -c 'cc -o /tmp/t /tmp/t.c && /tmp/t' | grep -qx 'hello from C'"
check "build-essential: c++ compiles and runs C++" bash -c \
  "chroot '$b' /bin/bash -c 'c++ -o /tmp/tcc /tmp/t.cc && /tmp/tcc' | grep -qx 'hello from C++'"

echo "summary: $failures failed checks"
[ "$failures" = 0 ]
