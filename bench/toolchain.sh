#!/usr/bin/env bash
# Toolchain layer and provision benchmark: testdata/repos/real-ts-monorepo-
# vscode-sqlite3 (node >=20.18.0 from the npm registry, the overlay
# build-essential g++ python3) on an mmdebstrap bookworm minbase, against the
# engine way. Ratios, not thresholds; median of REPS runs each.
#   layer-cold : the node layer built from archives already in
#                $STRATA_HOME/toolchains/archives (layers/ and blobs/ removed),
#                measured as `strata provision` into the same destination
#                (the overlay is a hit there), so it includes the plan and
#                the overlay hit; --offline: no network at all
#   layer-hit  : the same command again (the layer found by its key)
#   prov-cold  : `strata provision` into an empty destination, $STRATA_HOME
#                holding only debs/ and toolchains/archives/ (the .debs and
#                the node+npm tarballs): the apt indexes and the npm
#                packuments are fetched, the base read, the overlay built,
#                the node layer built, the image written
#   prov-new   : the same into an empty destination, every cache warm
#   prov-hit   : the same destination again (cache hit)
#   engine     : `podman build --no-cache` (overlay storage, its own root) of
#                a Containerfile FROM the same minbase (already in podman's
#                storage) that runs `apt-get update && apt-get install
#                --no-install-recommends` of the plan's overlay packages with
#                the same .debs bind-mounted as /var/cache/apt/archives (apt
#                downloads no package: the log must say "Need to get 0 B"),
#                then unpacks the same node and npm tarballs into the same
#                prefix with the same links and env; engine+oci = that build
#                then `podman push` to an OCI layout (gzip layers, what
#                strata writes)
# The script checks the engine image does the same work: the same dpkg
# package set (name, version) as strata's image, node at the same version,
# the same npm version, npm_config_nodedir set.
# Uses the host's Debian archive and registry.npmjs.org (not for CI). Needs
# root, mmdebstrap, podman, jq, umoci.
#   usage: bench/toolchain.sh [STRATA_BINARY]     (REPS=3; WORK=DIR keeps the minbase)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
STRATA=$(readlink -f "${1:-${STRATA:-strata}}")
REPS=${REPS:-3}
SUITE=${SUITE:-bookworm}
SOURCES=${SOURCES:-/etc/apt/sources.list.d/debian.sources}
work=${WORK:-$(mktemp -d /var/tmp/strata-toolchain-bench-XXXXXX)}
mkdir -p "$work"
export STRATA_HOME=$work/home
repo=$here/testdata/repos/real-ts-monorepo-vscode-sqlite3
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { echo "$1 / $2" | bc -l | xargs printf '%.1f'; }
p=$work/podman
pod() { CONTAINERS_CONF=$p/containers.conf podman --root "$p/root" --runroot "$p/run" --tmpdir "$p/tmp" --storage-driver overlay \
  --cgroup-manager cgroupfs --runtime runc --events-backend file "$@"; }
cleanup() { pod rmi -a -f > /dev/null 2>&1 || true; }
trap cleanup EXIT

[ -f "$work/base.tar" ] || mmdebstrap --quiet --variant=minbase --mode=root "$SUITE" "$work/base.tar" "$SOURCES"
SOURCE_DATE_EPOCH=1700000000 "$STRATA" -q import "$work/base.tar" --dest "oci:$work/img:base" --platform linux/amd64 > /dev/null
base="oci:$work/img:base"
common=(--sources "$SOURCES" --platform linux/amd64 --toolchain-source node=npm)
provision() {  # DEST [GLOBAL-OPTION...] → the reference it prints
  local dest=$1; shift
  "$STRATA" -q "$@" provision "$repo" --base "$base" --dest "oci:$dest" "${common[@]}" | tail -n 1
}

# Fetch once (not timed): the .debs, the indexes, the node and npm tarballs.
rm -rf "$work/prefetch"
"$STRATA" -q provision "$repo" --base "$base" --dest "oci:$work/prefetch" "${common[@]}" --json > "$work/prefetch.json"
release=$(jq -r '.toolchains[0].release' "$work/prefetch.json")
prefix=$(jq -r '.toolchains[0].prefix' "$work/prefetch.json")
ref=$(jq -r .reference "$work/prefetch.json")
mapfile -t packages < <("$STRATA" -q plan "$repo" --base "$base" "${common[@]}" --json | jq -r '.overlay.packages[]')
annotation=$(jq -r '.annotations["dev.strata.toolchain.node"]' "$work/prefetch/blobs/sha256/${ref##*sha256:}")
node_hex=$(jq -r '.archives[0].digest | sub("sha512:"; "")' <<< "$annotation")
npm_hex=$(jq -r '.archives[1].digest | sub("sha512:"; "")' <<< "$annotation")
npm_version=$(jq -r '.archives[1].url' <<< "$annotation" | sed 's#.*/npm-\(.*\)\.tgz#\1#')

# (a) the node layer: cold (from the cached archives) and hit.
lc=() lh=()
for _ in $(seq "$REPS"); do
  rm -rf "$STRATA_HOME/toolchains/layers" "$STRATA_HOME/toolchains/blobs"
  t=$(now); r=$(provision "$work/prefetch" --offline); lc+=("$(since "$t")")
  [ "$r" = "$ref" ] || { echo "layer-cold gave $r, not $ref" >&2; exit 1; }
  t=$(now); provision "$work/prefetch" --offline > /dev/null; lh+=("$(since "$t")")
done

# (b) provision: cold (only debs/ and toolchains/archives/ kept), new destination, hit.
keep=$work/keep; rm -rf "$keep"; mkdir -p "$keep"
mv "$STRATA_HOME/debs" "$keep/debs"; mv "$STRATA_HOME/toolchains/archives" "$keep/archives"
pc=() pn=() ph=()
for i in $(seq "$REPS"); do
  rm -rf "$STRATA_HOME" "$work"/out-*; mkdir -p "$STRATA_HOME/toolchains"
  cp -al "$keep/debs" "$STRATA_HOME/debs"; cp -al "$keep/archives" "$STRATA_HOME/toolchains/archives"
  t=$(now); r=$(provision "$work/out-cold-$i"); pc+=("$(since "$t")")
  [ "$r" != "${r#oci:$work/out-cold-$i}" ] || { echo "prov-cold gave $r" >&2; exit 1; }
  t=$(now); provision "$work/out-new-$i" > /dev/null; pn+=("$(since "$t")")
  t=$(now); provision "$work/out-new-$i" > /dev/null; ph+=("$(since "$t")")
done
cold_dest=$work/out-cold-$REPS
cold_ref=$(provision "$cold_dest")

# (c) the engine way: podman build.
ctx=$work/ctx; rm -rf "$ctx"; mkdir -p "$ctx/debs" "$ctx/node"
for d in "$STRATA_HOME"/debs/sha256/*; do
  name=$(dpkg-deb -f "$d" Package)_$(dpkg-deb -f "$d" Version | sed 's/:/%3a/')_$(dpkg-deb -f "$d" Architecture).deb
  ln "$d" "$ctx/debs/$name"
done
ln "$STRATA_HOME/toolchains/archives/sha512/$node_hex" "$ctx/node/node.tgz"
ln "$STRATA_HOME/toolchains/archives/sha512/$npm_hex" "$ctx/node/npm.tgz"
cat > "$ctx/Containerfile" <<EOF
FROM localhost/strata-bench/minbase
RUN --mount=type=bind,source=debs,target=/var/cache/apt/archives,rw=true \\
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${packages[*]} \\
    && rm -rf /var/lib/apt/lists/*
RUN --mount=type=bind,source=node,target=/ctx \\
    mkdir -p $prefix/lib/node_modules/npm \\
    && tar -xzf /ctx/node.tgz -C $prefix --strip-components=1 \\
    && tar -xzf /ctx/npm.tgz -C $prefix/lib/node_modules/npm --strip-components=1 \\
    && ln -s ../lib/node_modules/npm/bin/npm-cli.js $prefix/bin/npm \\
    && ln -s ../lib/node_modules/npm/bin/npx-cli.js $prefix/bin/npx \\
    && ln -s $prefix/bin/node $prefix/bin/npm $prefix/bin/npx /usr/local/bin/
ENV PATH=$prefix/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin npm_config_nodedir=$prefix
EOF
rm -rf "$p"; mkdir -p "$p/tmp"
printf '[containers]\ndefault_ulimits = []\n' > "$p/containers.conf"  # no raising limits a sandbox refuses
pod tag "$(pod pull -q "$base" | tail -n 1)" localhost/strata-bench/minbase
eng=() engo=()
for i in $(seq "$REPS"); do
  pod rmi -f localhost/strata-bench/engine > /dev/null 2>&1 || true
  rm -rf "$work/engine-oci"
  t=$(now)
  pod build --no-cache --network host -t localhost/strata-bench/engine -f "$ctx/Containerfile" "$ctx" > "$work/engine.log" 2>&1 ||
    { cat "$work/engine.log" >&2; exit 1; }
  eng+=("$(since "$t")")
  pod push -q localhost/strata-bench/engine "oci:$work/engine-oci:engine" > /dev/null 2>&1
  engo+=("$(since "$t")")
done

# Same work: packages, node, npm, the env.
run_engine() { pod run --rm --network none localhost/strata-bench/engine "$@"; }
pod pull -q "oci:$cold_dest:$(jq -r --arg d "sha256:${cold_ref##*sha256:}" \
  '.manifests[] | select(.digest == $d) | .annotations["org.opencontainers.image.ref.name"]' "$cold_dest/index.json" |
  grep '^provision-' | head -n 1)" > "$work/strata-image-id"
run_strata() { pod run --rm --network none "$(tail -n 1 "$work/strata-image-id")" "$@"; }
q='dpkg-query -W -f=${Package}\t${Version}\n'
diff <(run_engine $q | sort) <(run_strata $q | sort) > "$work/packages.diff" ||
  { echo "the engine image's packages differ from strata's:" >&2; cat "$work/packages.diff" >&2; exit 1; }
n_pkgs=$(run_strata $q | wc -l)
same() {  # COMMAND...: the last line of its output is the same in both images
  local a b; a=$(run_engine "$@" 2> /dev/null | tail -n 1); b=$(run_strata "$@" 2> /dev/null | tail -n 1)
  [ -n "$a" ] && [ "$a" = "$b" ] || { echo "$*: engine '$a', strata '$b'" >&2; exit 1; }
}
same node --version
same npm --version
same sh -c 'echo "$npm_config_nodedir"'
same sh -c 'echo "$PATH"'
same bash -lc 'command -v node'
[ "$(run_strata node --version)" = "v$release" ] && [ "$(run_strata npm --version 2> /dev/null)" = "$npm_version" ] ||
  { echo "strata's image does not run node $release / npm $npm_version" >&2; exit 1; }
grep -q 'Need to get 0 B' "$work/engine.log" || { echo "apt downloaded packages in the engine build" >&2; exit 1; }

LC=$(median "${lc[@]}") LH=$(median "${lh[@]}")
PC=$(median "${pc[@]}") PN=$(median "${pn[@]}") PH=$(median "${ph[@]}")
E=$(median "${eng[@]}") EO=$(median "${engo[@]}")
echo "strata toolchain benchmark: $(nproc) cores, median of $REPS; node $release + npm $npm_version from the npm registry,"
echo "overlay ${packages[*]} ($n_pkgs packages in the image, the engine's identical), $SUITE minbase"
printf '%-58s %8s\n' measure seconds
printf '%-58s %8.2f\n' "layer-cold  node layer from cached archives (provision --offline)" "$LC"
printf '%-58s %8.3f\n' "layer-hit   the same again" "$LH"
printf '%-58s %8.2f\n' "prov-cold   provision, only .debs + node/npm tarballs cached" "$PC"
printf '%-58s %8.2f\n' "prov-new    provision, every cache warm, empty destination" "$PN"
printf '%-58s %8.3f\n' "prov-hit    provision, same destination" "$PH"
printf '%-58s %8.2f\n' "engine      podman build --no-cache, same .debs and tarballs" "$E"
printf '%-58s %8.2f\n' "engine+oci  the build, then podman push to an OCI layout" "$EO"
echo "ratios: layer-cold/layer-hit $(ratio "$LC" "$LH")x  engine/prov-cold $(ratio "$E" "$PC")x" \
  " (engine+oci)/prov-cold $(ratio "$EO" "$PC")x  engine/prov-new $(ratio "$E" "$PN")x  engine/prov-hit $(ratio "$E" "$PH")x"
echo "runs (s): layer-cold ${lc[*]} | layer-hit ${lh[*]} | prov-cold ${pc[*]} | prov-new ${pn[*]} | prov-hit ${ph[*]}" \
  "| engine ${eng[*]} | engine+oci ${engo[*]}"
