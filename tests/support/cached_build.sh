#!/usr/bin/env bash
# A test fixture built once and copied to each test that needs it: every test
# runs in its own process, and building a fixture (keys, packages, signed
# indexes, release trees) costs seconds each time.
#   cached_build.sh KIND KEY OUT BUILD_COMMAND...
# KEY must name everything the fixture is made of (the caller hashes its
# inputs; 16 hex digits, as the path stays short: a gpg-agent's sockets live
# in the fixture's keys directory, and a socket's path has at most 107 bytes). Under $STRATA_TEST_CACHE (default $TMPDIR/strata-test-cache),
# KIND-KEY is built once by `BUILD_COMMAND... DIR` — one builder at a time,
# the others wait for it — with the gpg-agents it started stopped and their
# sockets removed, then marked complete; OUT gets its own copy to change.
set -euo pipefail
kind=${1:?usage: cached_build.sh KIND KEY OUT BUILD_COMMAND...}
key=${2:?key}
out=${3:?output directory}
shift 3
[ $# -gt 0 ] || { echo "cached_build.sh: no build command" >&2; exit 2; }
cache=${STRATA_TEST_CACHE:-${TMPDIR:-/tmp}/strata-test-cache}
mkdir -p "$cache"
entry=$cache/$kind-$key
(
  flock 9
  if [ ! -f "$entry/.cached" ]; then
    rm -rf "$entry"
    mkdir -p "$entry"
    "$@" "$entry" >&2
    find "$entry" -name S.gpg-agent -printf '%h\n' | while read -r home; do
      gpgconf --homedir "$home" --kill gpg-agent >/dev/null 2>&1 || true
    done
    find "$entry" -type s -delete
    touch "$entry/.cached"
  fi
) 9> "$entry.lock"
rm -rf "$out"
mkdir -p "$out"
cp -a "$entry/." "$out/"
rm -f "$out/.cached"
