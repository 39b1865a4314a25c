#!/usr/bin/env bash
# scripts/check_rooms.sh can fail: on a copy of the tree it names an include
# across the rule, a file in a room the rule does not know, and a pointer
# out of the project, and it passes the tree as it is.
#   check_rooms_test.sh SOURCE_DIR
set -euo pipefail
src=$(cd "$1" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "check_rooms_test: $*" >&2; exit 1; }

copy() { rm -rf "$work/t"; mkdir -p "$work/t"; cp -r "$src"/{src,scripts,tests,docs,bench,README.md,CMakeLists.txt} "$work/t/"; }
copy
"$work/t/scripts/check_rooms.sh" "$work/t" > "$work/out" || fail "the tree as it is fails: $(cat "$work/out")"

echo '#include "cli/app.hpp"' >> "$work/t/src/util/strings.hpp"
if "$work/t/scripts/check_rooms.sh" "$work/t" > "$work/out"; then fail "util including cli passed"; fi
grep -q 'src/util/strings.hpp:[0-9]*: includes "cli/app.hpp": room util may not depend on cli' "$work/out" \
  || fail "the message does not name the line: $(cat "$work/out")"

copy
mkdir -p "$work/t/src/newroom" && echo 'int x;' > "$work/t/src/newroom/a.cpp"
if "$work/t/scripts/check_rooms.sh" "$work/t" > "$work/out"; then fail "a file in an unknown room passed"; fi
grep -q "src/newroom/a.cpp: room 'newroom' is not in the dependency rule" "$work/out" || fail "$(cat "$work/out")"

copy
outside=shared   # spelled apart: this file itself must pass the rule
echo "see ../$outside/reference/x.md" >> "$work/t/docs/ARCHITECTURE.md"
if "$work/t/scripts/check_rooms.sh" "$work/t" > "$work/out"; then fail "a pointer outside the project passed"; fi
grep -q "docs/ARCHITECTURE.md:.*$outside/reference" "$work/out" || fail "$(cat "$work/out")"
echo "check_rooms_test: the rule passes the tree and names each kind of break"
