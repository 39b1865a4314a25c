#!/usr/bin/env bash
# Live tier (opt-in: STRATA_LIVE=1; ctest label `live`): the decision on the
# design's own story. A pnpm TypeScript monorepo whose workspace compiles
# @vscode/sqlite3 and needs Node >= 22 (testdata/repos/pnpm-ts-vscode-sqlite3),
# on a bookworm minbase made with mmdebstrap, with the host's archive:
#   plan routes Node 22 to a task toolchain (bookworm's nodejs is 18), pnpm to
#   the project, the C/C++ toolchain and python3 to the overlay;
#   preflight of the minbase fails with one message;
#   provision builds the overlay; preflight of its result passes;
#   in a chroot of the result cc, c++, make and python3 work.
#   decision_story.sh [STRATA_BINARY]
# Env: see lib.sh.
set -euo pipefail
needs="mmdebstrap umoci chroot"
source "$(dirname "$0")/lib.sh"

repo=$live_src/testdata/repos/pnpm-ts-vscode-sqlite3
root=$work/root
minbase_root "$root"
[ -f "$work/minbase.tar" ] || tar -C "$root" --numeric-owner -cf "$work/minbase.tar" .
layout=$work/images
base="oci:$layout:minbase"
SOURCE_DATE_EPOCH=1700000000 "$strata" -q import "$work/minbase.tar" --dest "$base" --platform linux/amd64 > /dev/null
common=(--sources "$sources" --platform linux/amd64)

"$strata" plan "$repo" --base "$base" "${common[@]}" > "$work/plan.txt"
sed 's/^/plan  /' "$work/plan.txt"
row() { grep -E "^$1 +$2 " "$work/plan.txt" | grep -q " $3 "; }
check "plan: node >=22 from a task toolchain" row runtime node task-toolchain
check "plan: pnpm bootstrapped by the project" row runtime pnpm project-bootstrap
check "plan: the C toolchain from the overlay" row toolchain native overlay
check "plan: g++ and python3 from the overlay" bash -c \
  "grep -E '^command +g\+\+ .* overlay ' '$work/plan.txt' && grep -E '^command +python3 .* overlay ' '$work/plan.txt'"

set +e
"$strata" preflight --image "$base" --repo "$repo" "${common[@]}" > "$work/pre.out" 2> "$work/pre.err"
code=$?
set -e
echo "pre   $(cat "$work/pre.err")"
check "preflight of the minbase: exit 3" test "$code" = 3
check "preflight of the minbase: one message" test "$(wc -l < "$work/pre.err")" = 1
check "the message names the task toolchain and what is missing" bash -c \
  "grep -q 'node >=22.0.0 (task toolchain)' '$work/pre.err' && grep -q 'no cc' '$work/pre.err' && grep -q 'no python3' '$work/pre.err'"

t0=$(now)
"$strata" provision "$repo" --base "$base" --dest "oci:$layout" "${common[@]}" > "$work/provision.out" 2> "$work/provision.err" ||
  { cat "$work/provision.err" >&2; exit 1; }
ref=$(tail -n 1 "$work/provision.out")
echo "time  strata provision: $(secs "$t0" "$(now)") s -> $ref"
check "preflight of what provision returned passes" "$strata" preflight --image "$ref" --repo "$repo" "${common[@]}"
again=$("$strata" -q provision "$repo" --base "$base" --dest "oci:$layout" "${common[@]}" | tail -n 1)
check "a second provision is a hit with the same digest" test "$again" = "$ref"

rm -rf "$work/bundle"
umoci unpack --image "$layout:$(awk -F'overlay built, key |overlay found by its key ' 'NF>1{print "overlay-" $2}' "$work/provision.err")" \
  "$work/bundle" > /dev/null
r=$work/bundle/rootfs
mkdir -p "$r/dev" && mount --bind /dev "$r/dev"
trap 'umount "$r/dev" 2> /dev/null || true; [ -n "${LIVE_KEEP:-}" ] || rm -rf "$work"' EXIT
printf '#include <stdio.h>\nint main(void){puts("hello from C");return 0;}\n' > "$r/tmp/t.c"
printf '#include <iostream>\nint main(){std::cout<<"hello from C++"<<std::endl;}\n' > "$r/tmp/t.cc"
printf 'all:\n\t@echo made\n' > "$r/tmp/Makefile"
check "cc compiles and runs C" bash -c "chroot '$r' /bin/bash -c 'cc -o /tmp/t /tmp/t.c && /tmp/t' | grep -qx 'hello from C'"
check "c++ compiles and runs C++" bash -c \
  "chroot '$r' /bin/bash -c 'c++ -o /tmp/tcc /tmp/t.cc && /tmp/tcc' | grep -qx 'hello from C++'"
check "make runs" bash -c "chroot '$r' make -s -C /tmp | grep -qx made"
check "python3 runs" bash -c "chroot '$r' python3 -c 'print(6*7)' | grep -qx 42"
[ "$failures" = 0 ]
