#!/usr/bin/env bash
# What the SBOMs and provenance cost a build (issue 34): a warm overlay build
# (the same packages on a Debian minbase into a new destination, every
# fragment cached, so no download and no conversion) attaches an SPDX and a
# CycloneDX SBOM and a SLSA provenance; `strata sbom --derive` of the
# result does the part of that work that costs anything — the image read
# back (every layer, for the dpkg database and the copyright files) and a
# document written — so its time over the warm build's is the documents'
# share. (The other document and the provenance are a few milliseconds of
# JSON; attaching is three small blobs.) Also `syft` for the same image when
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
warm=$(for i in 1 2 3; do
  t=$(now)
  "$STRATA" -q --jobs "$(nproc)" build --base "oci:$work/img:base" --lock "$work/lock.yaml" --dest "oci:$work/out-warm$i:x" "${PACKAGES[@]}" > /dev/null
  since "$t"
done | best)
ref="oci:$work/out-warm1:x"
sbom=$(for i in 1 2 3; do t=$(now); "$STRATA" -q sbom --derive "$ref" > "$work/derived.spdx.json"; since "$t"; done | best)
attached=$(for i in 1 2 3; do t=$(now); "$STRATA" -q sbom "$ref" > "$work/attached.spdx.json"; since "$t"; done | best)
packages=$(python3 -c "import json,sys; print(sum(p['SPDXID'].startswith('SPDXRef-Package-deb-') for p in json.load(open(sys.argv[1]))['packages']))" "$work/attached.spdx.json")
syft_time="-"
if command -v syft > /dev/null; then
  syft_time=$(for i in 1 2 3; do t=$(now); syft -q "oci-dir:$work/out-warm1" -o spdx-json > /dev/null; since "$t"; done | best)
fi
printf 'packages %s (%s packages in the image)\n' "${PACKAGES[*]}" "$packages"
printf 'warm build %.2f s; sbom --derive %.2f s (%.1f %% of the warm build); attached read %.2f s; syft %s\n' \
  "$warm" "$sbom" "$(echo "100 * $sbom / $warm" | bc -l)" "$attached" "$syft_time"
