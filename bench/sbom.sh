#!/usr/bin/env bash
# What the SBOMs and provenance cost a build (issue 34): a warm overlay build
# (the same packages on a Debian minbase into a new destination, every
# fragment cached, so no download and no conversion) with its SPDX and
# CycloneDX SBOMs and SLSA provenance attached, against the same warm build
# with `--no-attestations` (the same work but the documents: same lock, same
# fragments, a new destination each time), alternated, best of nine each.
# The difference is the documents' share. For scale, `strata sbom --derive`
# of the result: the image read back (every layer decompressed, for the
# dpkg database and copyright files), which is what attaching cost before
# the build made them from what it wrote. Also `syft` for the same image when
# installed (it is not on Debian 12), as the tool users would otherwise run.
# Uses the host's Debian archive (network on demand; not for CI). Needs
# root and mmdebstrap.
#
# usage: bench/sbom.sh [STRATA_BINARY] [PACKAGES...]   (default: build-essential libpq-dev)
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
"$STRATA" -q resolve --base "oci:$work/img:base" --platform linux/amd64 --lock-out "$work/lock.yaml" "${PACKAGES[@]}" > /dev/null
"$STRATA" -q fetch --lock "$work/lock.yaml" > /dev/null
rm -rf "$work"/out-*
# cold once (fragments converted), then warm builds into new destinations
"$STRATA" -q --jobs "$(nproc)" build --base "oci:$work/img:base" --lock "$work/lock.yaml" --dest "oci:$work/out-cold:x" "${PACKAGES[@]}" > /dev/null
best() { sort -n | head -1; }
warm_build() {  # DEST [--no-attestations]: seconds
  local t
  t=$(now)
  "$STRATA" -q --jobs "$(nproc)" build --base "oci:$work/img:base" --lock "$work/lock.yaml" --dest "oci:$work/$1:x" \
    "${@:2}" "${PACKAGES[@]}" > /dev/null
  since "$t"
}
with=() without=()
for i in 1 2 3 4 5 6 7 8 9; do
  with+=("$(warm_build "out-warm$i")")
  without+=("$(warm_build "out-bare$i" --no-attestations)")
done
warm=$(printf '%s\n' "${with[@]}" | best)
bare=$(printf '%s\n' "${without[@]}" | best)
# The same image either way (the documents are referrers, not part of it),
# and the documents there, and only there.
digest_of() { python3 -c "import json,sys; print([m['digest'] for m in json.load(open(sys.argv[1]))['manifests'] if m.get('annotations',{}).get('org.opencontainers.image.ref.name') == 'x'][0])" "$work/$1/index.json"; }
[ "$(digest_of out-warm1)" = "$(digest_of out-bare1)" ] || { echo "bench/sbom.sh: the two builds differ" >&2; exit 1; }
[ -n "$("$STRATA" -q sbom "oci:$work/out-warm1:x" | head -c 1)" ]
if "$STRATA" -q sbom --provenance "oci:$work/out-bare1:x" > /dev/null 2>&1; then
  echo "bench/sbom.sh: --no-attestations still attached a provenance" >&2
  exit 1
fi
ref="oci:$work/out-warm1:x"
sbom=$(for i in 1 2 3; do t=$(now); "$STRATA" -q sbom --derive "$ref" > "$work/derived.spdx.json"; since "$t"; done | best)
attached=$(for i in 1 2 3; do t=$(now); "$STRATA" -q sbom "$ref" > "$work/attached.spdx.json"; since "$t"; done | best)
packages=$(python3 -c "import json,sys; print(sum(p['SPDXID'].startswith('SPDXRef-Package-deb-') for p in json.load(open(sys.argv[1]))['packages']))" "$work/attached.spdx.json")
syft_time="-"
if command -v syft > /dev/null; then
  syft_time=$(for i in 1 2 3; do t=$(now); syft -q "oci-dir:$work/out-warm1" -o spdx-json > /dev/null; since "$t"; done | best)
fi
printf 'packages %s (%s packages in the image)\n' "${PACKAGES[*]}" "$packages"
printf 'warm build %.3f s; with --no-attestations %.3f s: the documents %.3f s (%.1f %% of the warm build)\n' \
  "$warm" "$bare" "$(echo "$warm - $bare" | bc -l)" "$(echo "100 * ($warm - $bare) / $warm" | bc -l)"
printf 'sbom --derive (the image read back) %.2f s; attached read %.2f s; syft %s\n' "$sbom" "$attached" "$syft_time"
