#!/usr/bin/env bash
# strata's main job as it stands, on a fresh Debian 12 machine as root:
# installs build dependencies, builds, then moves the test image from
# testdata/ into the embedded default store and out to an OCI layout and a
# docker-archive, printing the digest at every step (they must agree: copies
# are bit-exact).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh" build
"$root/scripts/build.sh"
strata="${BUILD_DIR:-$root/build}/src/cli/strata"
out=${STRATA_DEMO_OUT:-/tmp/strata-demo}
export STRATA_HOME=${STRATA_HOME:-$out/home}
rm -rf "$out/layout" "$out/hello.tar"
mkdir -p "$out"
set -x
"$strata" copy "oci:$root/testdata/images/hello-umoci:1.0" local:strata/hello:1.0
"$strata" copy local:strata/hello:1.0 "oci:$out/layout:hello"
"$strata" copy local:strata/hello:1.0 "docker-archive:$out/hello.tar:strata/hello:1.0"
"$strata" inspect --config "oci:$out/layout:hello"
