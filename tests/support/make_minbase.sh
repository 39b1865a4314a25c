#!/usr/bin/env bash
# A real Debian minbase root filesystem tarball from the Debian archive, for
# the fidelity tests that compare `strata build` with `apt-get install` on
# what users actually start from (docs/format/overlay.md "Compared with
# apt-get install"): `mmdebstrap --variant=minbase` of SUITE from the apt
# sources given.
#   make_minbase.sh build OUT SOURCES [SUITE]   OUT/minbase.tar, a copy of a cached fresh build
#   make_minbase.sh fresh SOURCES SUITE OUT     made now (cached_build.sh calls this)
# `build` is keyed (cached_build.sh) by this script, the sources file's
# content, the suite and today's date: the archive moves (security updates),
# so a copy is at most a day older than a fresh build, as the fixture
# archive's is. Needs root and mmdebstrap.
set -euo pipefail
cmd=${1:?usage: make_minbase.sh build OUT SOURCES [SUITE] | fresh SOURCES SUITE OUT}
case "$cmd" in
  build)
    out=${2:?output directory}; sources=${3:?apt sources file}; suite=${4:-bookworm}
    key=$( { cat "$0" "$sources"; echo "$suite"; date -u +%F; } | sha256sum | cut -c1-16)
    exec "$(dirname "$0")/cached_build.sh" minbase "$key" "$out" "$0" fresh "$sources" "$suite"
    ;;
  fresh)
    sources=${2:?sources}; suite=${3:?suite}; out=${4:?output directory}
    root=$(mktemp -d "${TMPDIR:-/tmp}/strata-minbase.XXXXXX")
    trap 'rm -rf "$root"' EXIT
    mmdebstrap --quiet --variant=minbase --mode=root "$suite" "$root" "$sources"
    tar -C "$root" --numeric-owner --sort=name -cf "$out/minbase.tar" .
    ;;
  *) echo "make_minbase.sh: unknown command $cmd" >&2; exit 2 ;;
esac
