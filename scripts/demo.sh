#!/usr/bin/env bash
# strata's main job on a fresh Debian 12 machine as root: installs the build
# dependencies, builds strata, then builds a real Debian image with no
# container engine — bookworm's minbase plus build-essential, from this
# machine's apt sources — into the embedded default store, and prints its
# reference followed by how to run it. Env: STRATA_DEMO_PACKAGES (default
# build-essential), STRATA_DEMO_DEST (default local:strata/build-essential:bookworm).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" build
# The binary alone: the test suite is scripts/test.sh's to build (most of a
# full build's time on a 2-core machine).
STRATA_TARGETS=strata "$root/scripts/build.sh"
strata="${BUILD_DIR:-$root/build}/src/cli/strata"
dest=${STRATA_DEMO_DEST:-local:strata/build-essential:bookworm}
read -r -a packages <<< "${STRATA_DEMO_PACKAGES:-build-essential}"
# The image: Essential + required + apt (mmdebstrap's minbase) and the
# packages, from the host's sources, reproducible (created = the archive's date).
ref=$("$strata" build --base scratch "${packages[@]}" --dest "$dest")
echo "$ref"
cat <<HINT
# run it (umoci: apt-get install umoci), or copy it anywhere strata copies to:
#   $strata copy $dest oci:/tmp/strata-image:latest && umoci unpack --rootless --image /tmp/strata-image:latest /tmp/strata-bundle && chroot /tmp/strata-bundle/rootfs /bin/bash
#   $strata copy $dest docker-archive:/tmp/strata-image.tar:${dest#local:}   # then: docker load < /tmp/strata-image.tar
HINT
