#!/usr/bin/env bash
# strata's main job on a fresh Debian 12 machine as root: the decision, told
# on the example repository that ships with strata (examples/pnpm-monorepo: a
# pnpm TypeScript monorepo with a native Node module, Node >= 20.4 asked for,
# above bookworm's nodejs 18). It installs the build dependencies, builds the
# strata binary alone, then with no container engine and no base image in a
# registry:
#   plan       — scan the repository and route each requirement to a layer,
#                against `--base scratch` (Debian's minbase from this
#                machine's apt sources, built once into strata's local store);
#   provision  — the overlay (the C++ toolchain and python3 node-gyp needs, as
#                Debian packages), the toolchain layer (Node from the npm
#                registry's node-linux-<arch> package, integrity-checked),
#                pre-flight of the result; one image under STRATA_DEMO_DEST;
# and runs one check inside the image: node is the toolchain's, on the floor's
# line (with podman when installed; where it cannot start containers, umoci
# unpack + chroot).
# The toolchain comes from the npm registry (node=npm), which a CI machine that
# reaches only Debian's archive and registry.npmjs.org reaches; a TLS proxy's
# CA in NODE_EXTRA_CA_CERTS is trusted. One line per step; the details go to a
# log file. Env: STRATA_DEMO_DEST (default local:strata/demo:latest),
# STRATA_DEMO_TOOLCHAIN_SOURCE (default node=npm), STRATA_DEMO_RUN=0 (no
# podman step), STRATA_DEMO_LOG (default $TMPDIR/strata-demo.log).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
log=${STRATA_DEMO_LOG:-${TMPDIR:-/tmp}/strata-demo.log}
: > "$log"
start=$SECONDS
step() { printf '[%3ds] %s\n' $((SECONDS - start)) "$*"; }
# Runs a step's command with its output in the log; on failure shows the log's tail.
quietly() {
  if ! "$@" >> "$log" 2>&1; then
    echo "demo: failed: $* (last lines of $log):" >&2
    tail -n 15 "$log" >&2
    exit 1
  fi
}

quietly "$root/scripts/setup.sh" build
step "setup: build dependencies installed (scripts/setup.sh build)"
# The binary alone: the test suite is scripts/test.sh's to build (most of a
# full build's time on a 2-core machine).
STRATA_TARGETS=strata quietly "$root/scripts/build.sh"
strata="${BUILD_DIR:-$root/build}/src/cli/strata"
step "build: $strata"

repo="$root/examples/pnpm-monorepo"
dest=${STRATA_DEMO_DEST:-local:strata/demo:latest}
toolchain=${STRATA_DEMO_TOOLCHAIN_SOURCE:-node=npm}
decide=(--repo "$repo" --base scratch --toolchain-source "$toolchain")

# The plan: builds (or finds) the scratch base, then routes against its facts.
mark=$(wc -l < "$log")
plan=$("$strata" plan "${decide[@]}" 2>> "$log") || {
  echo "demo: plan failed (last lines of $log):" >&2
  tail -n 15 "$log" >&2
  exit 1
}
base=$(tail -n +"$((mark + 1))" "$log" | grep -E '^the scratch base built' | sed 's/^the scratch base built, //; s/;.*//') || true
step "scratch base: Debian minbase from this machine's apt sources, ${base:-found in the local store by its key}"
step "plan: examples/pnpm-monorepo routed against it (requirement, layer, why):"
printf '%s\n' "$plan" | sed 's/^/    /'

# The image: overlay + toolchain layer on the scratch base, pre-flighted.
out=$("$strata" provision "${decide[@]}" --dest "$dest" 2>> "$log") || {
  echo "demo: provision failed (last lines of $log):" >&2
  tail -n 15 "$log" >&2
  exit 1
}
ref=$(tail -n 1 <<< "$out")
overlay=$(grep -E '^(overlay built|overlay found|no overlay)' "$log" | tail -n 1) || true
tc=$(grep -E '^toolchain ' "$log" | tail -n 1) || true
step "provision: ${overlay:-overlay done}; pre-flight passed"
[ -n "$tc" ] && step "toolchain source ($toolchain): $tc"
echo "$ref"
cat <<HINT
# the image: $ref
# run it with podman:   $strata copy $dest oci-archive:/tmp/strata-demo.tar:${dest#local:} && podman load -i /tmp/strata-demo.tar && podman run --rm -it ${dest#local:} bash -l
# or without an engine: $strata copy $dest oci:/tmp/strata-demo:latest && umoci unpack --rootless --image /tmp/strata-demo:latest /tmp/strata-demo-bundle && chroot /tmp/strata-demo-bundle/rootfs /bin/bash -l
HINT

# One check inside the image: node is the toolchain layer's, on the floor's line.
floor=$(sed -n 's/.*"node": *">=\([0-9]*\)\..*/\1/p' "$repo/package.json")
check_node() {  # HOW VERSION
  case "$2" in
    "v$floor".*) step "$1: node --version in the image is $2 (the floor's line, $floor.x)" ;;
    *) echo "demo: node in the image is '$2', not on the floor's line $floor.x" >&2; exit 1 ;;
  esac
}
if [ "${STRATA_DEMO_RUN:-1}" != 0 ]; then
  scratch=$(mktemp -d)
  ran=
  if command -v podman > /dev/null; then
    quietly "$strata" -q copy "$ref" "oci-archive:$scratch/demo.tar:${dest#local:}"
    quietly podman load -q -i "$scratch/demo.tar"
    if version=$(podman run --rm --network=none "${dest#local:}" node --version 2>> "$log"); then
      check_node "podman run ${dest#local:}" "$version"
      ran=1
    else
      step "podman: loaded ${dest#local:}, but this machine cannot start containers (see $log)"
    fi
  fi
  if [ -z "$ran" ] && command -v umoci > /dev/null; then
    # No engine that runs here: the same image unpacked and run with chroot.
    quietly "$strata" -q copy "$ref" "oci:$scratch/layout:demo"
    quietly umoci unpack --rootless --image "$scratch/layout:demo" "$scratch/bundle"
    check_node "umoci unpack + chroot" "$(chroot "$scratch/bundle/rootfs" /bin/bash -lc 'node --version' 2>> "$log")"
  fi
  rm -rf "$scratch"
fi
step "done in $((SECONDS - start))s (details: $log)"
