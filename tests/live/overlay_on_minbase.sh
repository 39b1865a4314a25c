#!/usr/bin/env bash
# Live tier (opt-in: STRATA_LIVE=1; ctest label `live`): the overlay the
# benchmarks build, checked by running it. A bookworm minbase root made with
# mmdebstrap is imported as the base image; `strata build` adds
# build-essential and libpq-dev from the host's Debian archive; umoci unpacks
# the result and, in a chroot:
#   cc and c++ compile and run hello programs, a program links with -lpq and
#   runs, dpkg -l lists the packages, dpkg --audit is clean,
#   `apt-get install -s build-essential` finds it already installed, and
#   `ldconfig -p` shows the new libraries.
# Then the same tree as apt-get install: tests/support/overlay_vs_apt.sh runs
# the minbase's own apt in a chroot of the tarball and compares the two
# trees path by path (type, mode, owner, target, content) and ldconfig -p.
# Then the lock is built again in another home with other --jobs, umask and
# TZ: the same digest.
#   overlay_on_minbase.sh [STRATA_BINARY]
# Env: see lib.sh.
set -euo pipefail
needs="mmdebstrap umoci chroot"
source "$(dirname "$0")/lib.sh"

root=$work/root
minbase_root "$root"
[ -f "$work/minbase.tar" ] || tar -C "$root" --numeric-owner -cf "$work/minbase.tar" .
layout=$work/images
SOURCE_DATE_EPOCH=1700000000 "$strata" -q import "$work/minbase.tar" --dest "oci:$layout:minbase" \
  --platform linux/amd64 > /dev/null

t0=$(now)
"$strata" -q build --base "oci:$layout:minbase" build-essential libpq-dev --sources "$sources" \
  --platform linux/amd64 --dest "oci:$layout:overlay" --lock-out "$work/overlay.lock" > "$work/overlay.ref" \
  2> "$work/strata.err" || { cat "$work/strata.err" >&2; exit 1; }
echo "time  strata build build-essential libpq-dev: $(secs "$t0" "$(now)") s -> $(cat "$work/overlay.ref")"
grep -i 'not reproduced' "$work/strata.err" | sed 's/^/note  /' || true

rm -rf "$work/bundle"
umoci unpack --image "$layout:overlay" "$work/bundle" > /dev/null
r=$work/bundle/rootfs
cp /etc/resolv.conf "$r/etc/resolv.conf" 2> /dev/null || true
# A runtime provides /dev; a bare chroot needs it bound (apt and cc write to /dev/null).
mkdir -p "$r/dev" && mount --bind /dev "$r/dev"
trap 'umount "$r/dev" 2> /dev/null || true; [ -n "${LIVE_KEEP:-}" ] || rm -rf "$work"' EXIT

printf '#include <stdio.h>\nint main(void){puts("hello from C");return 0;}\n' > "$r/tmp/t.c"
printf '#include <iostream>\nint main(){std::cout<<"hello from C++"<<std::endl;}\n' > "$r/tmp/t.cc"
printf '#include <stdio.h>\n#include <libpq-fe.h>\nint main(void){printf("libpq %%d\\n", PQlibVersion());return 0;}\n' \
  > "$r/tmp/pq.c"
check "cc compiles and runs C" bash -c "chroot '$r' /bin/bash -c 'cc -o /tmp/t /tmp/t.c && /tmp/t' | grep -qx 'hello from C'"
check "c++ compiles and runs C++" bash -c \
  "chroot '$r' /bin/bash -c 'c++ -o /tmp/tcc /tmp/t.cc && /tmp/tcc' | grep -qx 'hello from C++'"
check "a program links with -lpq and runs" bash -c \
  "chroot '$r' /bin/bash -c 'cc -I/usr/include/postgresql -o /tmp/pq /tmp/pq.c -lpq && /tmp/pq' | grep -q '^libpq [0-9]'"
check "dpkg -l lists build-essential and libpq-dev" bash -c \
  "chroot '$r' dpkg -l build-essential libpq-dev | grep -c '^ii ' | grep -qx 2"
check "dpkg --audit is clean" bash -c "[ -z \"\$(chroot '$r' dpkg --audit)\" ]"
check "apt-get install -s build-essential: already installed" chroot "$r" /bin/bash -c \
  'apt-get -qq update && apt-get install -s build-essential | grep -q "build-essential is already the newest version"'
check "ldconfig -p shows libpq" bash -c "chroot '$r' ldconfig -p | grep -q 'libpq.so.5 '"
check "cc is the gcc-12 alternative" bash -c "[ \"\$(readlink '$r/etc/alternatives/cc')\" = /usr/bin/gcc ]"

digest=$(sed 's/.*@//' "$work/overlay.ref")
again=$(umask 077; TZ=Pacific/Kiritimati STRATA_HOME=$work/home-2 "$strata" -q --jobs 1 build \
  --base "oci:$layout:minbase" --lock "$work/overlay.lock" --dest "oci:$work/images-2:overlay" build-essential libpq-dev)
check "the lock rebuilt in another home, umask, TZ and --jobs: same digest" test "${again##*@}" = "$digest"

# The same tree as apt-get install, path for path: the minbase's own apt in
# a chroot of the same tarball, against the same archive
# (docs/format/overlay.md "Compared with apt-get install").
name="the overlay is apt-get install's tree, path for path"
if "$live_src/tests/support/overlay_vs_apt.sh" "$strata" "$work/minbase.tar" "$sources" "$work/vs-apt" \
    -- build-essential libpq-dev > "$work/vs-apt.out" 2>&1; then
  echo "ok    $name"; tail -2 "$work/vs-apt.out" | sed 's/^/note  /'
else
  echo "FAIL  $name"; sed 's/^/      /' "$work/vs-apt.out"; failures=$((failures + 1))
fi

echo "summary: $failures failed checks"
[ "$failures" = 0 ]
