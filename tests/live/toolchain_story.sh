#!/usr/bin/env bash
# Live tier (opt-in: STRATA_LIVE=1; ctest label `live`): the toolchain layer
# on a real repository. testdata/repos/real-ts-monorepo-vscode-sqlite3 (npm
# workspaces, engines node >=20.18.0, .nvmrc 20, @vscode/sqlite3 compiled at
# install) on a bookworm minbase made with mmdebstrap, with the host's apt
# archive and Node from the npm registry (--toolchain-source node=npm):
#   plan routes node to a task toolchain (bookworm's nodejs is 18);
#   provision stacks the overlay (cc, make, python3) and the node layer;
#   pre-flight of its result passes;
#   in a chroot of the result, with nodejs.org unreachable (/etc/hosts sends
#   it to 0.0.0.0), a login shell finds /usr/local/bin/node of the 20 line,
#   cc, make and python3 work, and `npm install --build-from-source
#   better-sqlite3` compiles against the layer's headers (npm_config_nodedir
#   from the image config's Env) and the module loads;
#   a second provision is a hit with the same digest and cached layers;
#   --no-toolchain-layer gives an image without /opt/strata.
#   toolchain_story.sh [STRATA_BINARY]
# Network: deb.debian.org and registry.npmjs.org. strata (libcurl) trusts
# libcurl's default CA bundle (the system store, /etc/ssl/certs on Debian)
# plus /etc/{docker,containers}/certs.d/<host>/*.crt; it does not read
# CURL_CA_BUNDLE or SSL_CERT_FILE. Behind a TLS-intercepting proxy the
# proxy's CA must therefore be in the system store (update-ca-certificates)
# or in /etc/containers/certs.d/registry.npmjs.org/. Inside the chroot npm
# gets the CA file NODE_EXTRA_CA_CERTS names (else the host's system bundle)
# as NODE_EXTRA_CA_CERTS and npm_config_cafile, and the host's *_proxy vars.
# Env: see lib.sh.
set -euo pipefail
needs="mmdebstrap umoci chroot jq"
source "$(dirname "$0")/lib.sh"

repo=$live_src/testdata/repos/real-ts-monorepo-vscode-sqlite3
root=$work/root
minbase_root "$root"
[ -f "$work/minbase.tar" ] || tar -C "$root" --numeric-owner -cf "$work/minbase.tar" .
layout=$work/images
dest=$work/out
base="oci:$layout:minbase"
SOURCE_DATE_EPOCH=1700000000 "$strata" -q import "$work/minbase.tar" --dest "$base" --platform linux/amd64 > /dev/null
common=(--sources "$sources" --platform linux/amd64 --toolchain-source node=npm)

"$strata" plan "$repo" --base "$base" "${common[@]}" > "$work/plan.txt"
sed 's/^/plan  /' "$work/plan.txt"
row() { grep -E "^$1 +$2 " "$work/plan.txt" | grep -q " $3 "; }
check "plan: node from a task toolchain" row runtime node task-toolchain
check "plan: the C toolchain from the overlay" row toolchain native overlay
check "plan: python3 from the overlay" bash -c "grep -E '^command +python3 .* overlay ' '$work/plan.txt'"

rm -rf "$dest"
t0=$(now)
set +e
"$strata" provision "$repo" --base "$base" --dest "oci:$dest" "${common[@]}" > "$work/provision.out" 2> "$work/provision.err"
code=$?
set -e
sed 's/^/prov  /' "$work/provision.err"
check "provision: exit 0" test "$code" = 0
[ "$code" = 0 ] || { echo "FAIL  provision failed; stopping"; exit 1; }
ref=$(tail -n 1 "$work/provision.out")
echo "time  strata provision (cold: overlay, node layer, downloads): $(secs "$t0" "$(now)") s -> $ref"
digest=sha256:${ref##*sha256:}
tag=$(jq -r --arg d "$digest" '.manifests[] | select(.digest == $d) | .annotations["org.opencontainers.image.ref.name"] // empty' \
  "$dest/index.json" | grep '^provision-' | head -n 1)
check "the printed reference is tagged provision-<sha256> in the destination" test -n "$tag"
check "preflight of what provision returned passes" \
  "$strata" preflight --image "$ref" --repo "$repo" --sources "$sources" --platform linux/amd64
manifest=$dest/blobs/sha256/${digest#sha256:}
release=$(jq -r '.annotations["dev.strata.toolchain.node"] // "{}"' "$manifest" | jq -r '.release // empty')
echo "node  the layer carries node $release"
check "the image is annotated dev.strata.toolchain.node with a release of the 20 line" \
  bash -c "[[ '$release' == 20.* ]]"

rm -rf "$work/bundle"
t0=$(now)
umoci unpack --image "$dest:$tag" "$work/bundle" > /dev/null
echo "time  umoci unpack: $(secs "$t0" "$(now)") s"
r=$work/bundle/rootfs
mkdir -p "$r/dev" "$r/proc"
mount --bind /dev "$r/dev"
mount -t proc proc "$r/proc"
trap 'umount "$r/proc" "$r/dev" 2> /dev/null || true; [ -n "${LIVE_KEEP:-}" ] || rm -rf "$work"' EXIT
cp -L /etc/resolv.conf "$r/etc/resolv.conf"
echo '0.0.0.0 nodejs.org' >> "$r/etc/hosts"
ca=${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}
cp -L "$ca" "$r/usr/local/share/strata-live-ca.pem"
# The image config's Env (umoci writes it into the bundle's config.json), the
# CA and the proxy settings: what a runtime plus CI's network setup give.
mapfile -t image_env < <(jq -r '.process.env[]' "$work/bundle/config.json")
run_env=("${image_env[@]}" NODE_EXTRA_CA_CERTS=/usr/local/share/strata-live-ca.pem
  npm_config_cafile=/usr/local/share/strata-live-ca.pem)
for v in http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY; do
  if [ -n "${!v:-}" ]; then run_env+=("$v=${!v}"); fi
done
in_root() { chroot "$r" env -i "${run_env[@]}" bash -lc "$1"; }
gives() { in_root "$2" | grep -x -- "$1" > /dev/null; }  # LINE SCRIPT: a login shell's output has LINE
printf '%s\n' "${image_env[@]}" | sed 's/^/env   /'
check "the image env sets npm_config_nodedir to the layer's prefix" \
  grep -qx "npm_config_nodedir=/opt/strata/toolchains/node/$release" <(printf '%s\n' "${image_env[@]}")
check "nodejs.org is unreachable in the chroot" bash -c \
  "! chroot '$r' timeout 10 bash -c 'exec 3<>/dev/tcp/nodejs.org/443'"
check "a login shell finds /usr/local/bin/node" gives /usr/local/bin/node 'command -v node'
check "node --version is v$release" gives "v$release" 'node --version'
printf '#include <stdio.h>\nint main(void){puts("hello from C");return 0;}\n' > "$r/tmp/t.c"
printf 'all:\n\t@echo made\n' > "$r/tmp/Makefile"
check "cc compiles and runs C" gives 'hello from C' 'cc -o /tmp/t /tmp/t.c && /tmp/t'
check "make runs" gives made 'make -s -C /tmp'
check "python3 runs" gives 42 'python3 -c "print(6*7)"'

mkdir -p "$r/work/scratch"
t0=$(now)
set +e
in_root 'cd /work/scratch && npm init -y > /dev/null && npm install --build-from-source --no-audit --no-fund better-sqlite3' \
  > "$work/npm.log" 2>&1
code=$?
set -e
echo "time  npm install --build-from-source better-sqlite3 in the chroot: $(secs "$t0" "$(now)") s"
grep -E '^npm (warn|error)' "$work/npm.log" | sort | uniq -c | sed 's/^/npm  /' || true
check "npm install --build-from-source better-sqlite3: exit 0" bash -c "test $code = 0 || { tail -n 40 '$work/npm.log'; false; }"
gypi=$r/work/scratch/node_modules/better-sqlite3/build/config.gypi
check "node-gyp used the layer's headers (nodedir)" \
  grep -q "\"nodedir\": \"/opt/strata/toolchains/node/$release\"" "$gypi"
check "the addon was compiled against them" bash -c \
  "grep -rlq '/opt/strata/toolchains/node/$release/include/node' '$r/work/scratch/node_modules/better-sqlite3/build/Release/.deps'"
check "node-gyp downloaded no headers" test ! -e "$r/root/.cache/node-gyp"
check "require('better-sqlite3') loads and runs a query" gives 42 \
  "cd /work/scratch && node -e 'const D = require(\"better-sqlite3\"); console.log(new D(\":memory:\").prepare(\"select 6*7 as x\").get().x)'"

t0=$(now)
"$strata" -q provision "$repo" --base "$base" --dest "oci:$dest" "${common[@]}" --json > "$work/again.json"
echo "time  strata provision again: $(secs "$t0" "$(now)") s"
check "a second provision is a hit with the same digest" test "$(jq -r .reference "$work/again.json")" = "$ref"
check "… the overlay and the node layer both found in the cache" bash -c \
  "jq -e '.cached and (.toolchains | length == 1) and .toolchains[0].cached and .toolchains[0].tool == \"node\"' '$work/again.json'"

t0=$(now)
plain=$("$strata" -q provision "$repo" --base "$base" --dest "oci:$dest" --sources "$sources" --platform linux/amd64 \
  --no-toolchain-layer | tail -n 1)
echo "time  strata provision --no-toolchain-layer: $(secs "$t0" "$(now)") s -> $plain"
check "--no-toolchain-layer gives another image" test "$plain" != "$ref"
pdigest=sha256:${plain##*sha256:}
ptag=$(jq -r --arg d "$pdigest" '.manifests[] | select(.digest == $d) | .annotations["org.opencontainers.image.ref.name"] // empty' \
  "$dest/index.json" | grep -v '\.used$' | head -n 1)
rm -rf "$work/plain"
umoci unpack --image "$dest:$ptag" "$work/plain" > /dev/null
check "… without /opt/strata" test ! -e "$work/plain/rootfs/opt/strata"
check "… nor node in /usr/local/bin" test ! -e "$work/plain/rootfs/usr/local/bin/node"
check "… nor npm_config_nodedir in its env" bash -c "! jq -r '.process.env[]' '$work/plain/config.json' | grep -q npm_config_nodedir"
[ "$failures" = 0 ]
