#!/usr/bin/env bash
# Writing an overlay into containerd's image store (issue 32): the
# `build-essential libpq-dev` overlay on a Debian minbase, where the base is
# already in the store (a node that runs many overlays of one base), in one
# run, three ways, each into a fresh private containerd that holds only the
# base:
#   strata     : strata copy oci:LAYOUT:overlay containerd:bench/overlay:1
#                (Info per blob, Write only the missing ones, the image record)
#   docker     : docker save bench/overlay:1 | ctr images import --no-unpack -
#                (what platforms document: build with Docker, then save and
#                import; the image was loaded into a private dockerd first,
#                untimed)
#   archive    : strata copy … oci-archive:F, then ctr images import
#                --no-unpack F (strata's only way into containerd before)
#   floor      : ctr content ingest of the overlay's new layers alone, the
#                blob files piped in: what containerd itself takes to store
#                the bytes no way into it can avoid (no image record)
# Every way ends with the same state the runtime needs: content and an image
# record, unpacked on first run (ctr run and CRI unpack lazily), which is why
# the imports run with --no-unpack. The script checks each did the work: the
# image record exists and its manifest names the overlay's config (the same
# config digest: Docker keeps the config bytes, recompresses nothing it
# exports but the layers). Bytes each way put through the socket: strata's
# bytesCopied, the archives' sizes. REPS runs each (median), interleaved.
#
# Uses the host's Debian archive (network on demand; not for CI). Needs root,
# mmdebstrap, containerd, ctr, dockerd, docker, jq.
#
# usage: bench/containerd.sh [STRATA_BINARY]      env: REPS (3), WORK
set -euo pipefail
STRATA=$(readlink -f "${1:-${STRATA:-$(command -v strata)}}")
REPS=${REPS:-3}
for tool in mmdebstrap containerd ctr dockerd docker jq bc; do
  command -v "$tool" > /dev/null || { echo "containerd.sh: needs $tool" >&2; exit 1; }
done
work=${WORK:-$(mktemp -d /var/tmp/strata-bench-containerd-XXXXXX)}
mkdir -p "$work"
export STRATA_HOME=$work/home
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
pids=()
cleanup() {
  for p in "${pids[@]}" $(cat "$work"/containerd.*/pid 2> /dev/null); do kill "$p" 2> /dev/null || true; done
  sleep 1
  grep -o " $work/[^ ]*" /proc/self/mounts | sort -r | xargs -r -n1 umount -l 2> /dev/null || true
}
trap cleanup EXIT

# The images (untimed): a minbase and the overlay strata builds on it.
[ -f "$work/base.tar" ] || mmdebstrap --quiet --variant=minbase --mode=root bookworm "$work/base.tar"
SOURCE_DATE_EPOCH=1700000000 "$STRATA" -q import "$work/base.tar" --dest "oci:$work/img:base" --platform linux/amd64 > /dev/null
"$STRATA" -q build --base "oci:$work/img:base" build-essential libpq-dev --platform linux/amd64 \
  --dest "oci:$work/img:overlay" > /dev/null
"$STRATA" -q copy "oci:$work/img:overlay" "docker-archive:$work/overlay.docker.tar:bench/overlay:1" > /dev/null
config=$("$STRATA" inspect "oci:$work/img:overlay" | jq -r .config.digest)
image_bytes=$("$STRATA" inspect "oci:$work/img:overlay" | jq '[.config.size] + [.layers[].size] | add')
new_bytes=$(jq -n --argjson base "$("$STRATA" inspect "oci:$work/img:base")" \
  --argjson overlay "$("$STRATA" inspect "oci:$work/img:overlay")" \
  '[$base.layers[].digest] as $have | [$overlay.layers[] | select(.digest as $d | $have | index($d) | not) | .size] | add')

# A private dockerd holding the overlay, for `docker save` (untimed load).
d=$work/docker
mkdir -p "$d"
echo '{}' > "$d/daemon.json"
dockerd --config-file "$d/daemon.json" --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/pid" \
  -H "unix://$d/sock" --iptables=false --ip6tables=false --bridge=none --storage-driver vfs \
  --exec-opt native.cgroupdriver=cgroupfs > "$d/log" 2>&1 &
pids+=($!)
docker=(env DOCKER_CONFIG="$d/cli" docker -H "unix://$d/sock")
for _ in $(seq 150); do "${docker[@]}" version > /dev/null 2>&1 && break; sleep 0.2; done
"${docker[@]}" load -q -i "$work/overlay.docker.tar" > /dev/null

# A fresh containerd holding only the base: START echoes its socket.
n=0
fresh_containerd() {
  n=$((n + 1))
  local c=$work/containerd.$n
  mkdir -p "$c"
  cat > "$c/config.toml" << EOF
version = 2
root = "$c/root"
state = "$c/state"
disabled_plugins = ["io.containerd.grpc.v1.cri"]
[grpc]
  address = "$c/sock"
[ttrpc]
  address = "$c/sock.ttrpc"
[debug]
  address = "$c/debug.sock"
EOF
  containerd --config "$c/config.toml" > "$c/log" 2>&1 &
  echo $! > "$c/pid"
  for _ in $(seq 150); do ctr -a "$c/sock" version > /dev/null 2>&1 && break; sleep 0.2; done
  "$STRATA" -q --containerd-address "$c/sock" --containerd-namespace bench copy "oci:$work/img:base" \
    containerd:bench/base:1 > /dev/null
  echo "$c"
}
stop_containerd() {
  kill "$(cat "$1/pid")" 2> /dev/null || true
  while kill -0 "$(cat "$1/pid")" 2> /dev/null; do sleep 0.1; done
  grep -o " $1/[^ ]*" /proc/self/mounts | sort -r | xargs -r -n1 umount -l 2> /dev/null || true
  rm -rf "$1"
}
# The work was done: NAME is in the store and its manifest names the config.
check() {  # SOCK NAME WAY
  local manifest
  manifest=$(ctr -a "$1" -n bench images ls | awk -v n="$2" '$1==n {print $3}')
  [ -n "$manifest" ] || { echo "containerd.sh: $3 left no image $2" >&2; exit 1; }
  local got doc
  doc=$(ctr -a "$1" -n bench content get "$manifest")
  # ctr imports an archive's index.json as the record's target: follow it to the image.
  if [ "$(jq -r '.manifests // empty | length' <<< "$doc")" != "" ]; then
    doc=$(ctr -a "$1" -n bench content get "$(jq -r '.manifests[0].digest' <<< "$doc")")
  fi
  got=$(jq -r .config.digest <<< "$doc")
  [ "$got" = "$config" ] || { echo "containerd.sh: $3 stored config $got, not $config" >&2; exit 1; }
}

# The overlay's layers the base lacks, as "DIGEST SIZE" lines.
new_layers=$(jq -rn --argjson base "$("$STRATA" inspect "oci:$work/img:base")" \
  --argjson overlay "$("$STRATA" inspect "oci:$work/img:overlay")" \
  '[$base.layers[].digest] as $have | $overlay.layers[] | select(.digest as $d | $have | index($d) | not) | "\(.digest) \(.size)"')

declare -A times
strata_bytes=0
for rep in $(seq "$REPS"); do
  c=$(fresh_containerd)
  t=$(now)
  out=$("$STRATA" --json --containerd-address "$c/sock" --containerd-namespace bench copy "oci:$work/img:overlay" \
    containerd:bench/overlay:1)
  times[strata]+="$(since "$t") "
  strata_bytes=$(jq .bytesCopied <<< "$out")
  check "$c/sock" docker.io/bench/overlay:1 strata
  stop_containerd "$c"

  c=$(fresh_containerd)
  t=$(now)
  "${docker[@]}" save bench/overlay:1 | ctr -a "$c/sock" -n bench images import --no-unpack - > /dev/null
  times[docker]+="$(since "$t") "
  check "$c/sock" docker.io/bench/overlay:1 "docker save | ctr import"
  stop_containerd "$c"

  c=$(fresh_containerd)
  rm -f "$work/overlay.oci.tar"
  t=$(now)
  "$STRATA" -q copy "oci:$work/img:overlay" "oci-archive:$work/overlay.oci.tar:overlay" > /dev/null
  ctr -a "$c/sock" -n bench images import --no-unpack --index-name docker.io/bench/overlay:1 "$work/overlay.oci.tar" > /dev/null
  times[archive]+="$(since "$t") "
  check "$c/sock" docker.io/bench/overlay:1 "oci-archive + ctr import"
  stop_containerd "$c"

  c=$(fresh_containerd)
  t=$(now)
  while read -r digest size; do
    ctr -a "$c/sock" -n bench content ingest --expected-digest "$digest" --expected-size "$size" "floor-$digest" \
      < "$work/img/blobs/sha256/${digest#sha256:}"
  done <<< "$new_layers"
  times[floor]+="$(since "$t") "
  while read -r digest size; do
    ctr -a "$c/sock" -n bench content ls -q | grep -qx "$digest" || { echo "containerd.sh: floor did not store $digest" >&2; exit 1; }
  done <<< "$new_layers"
  stop_containerd "$c"
done
docker_bytes=$("${docker[@]}" save bench/overlay:1 | wc -c)
archive_bytes=$(stat -c %s "$work/overlay.oci.tar")

s=$(tr ' ' '\n' <<< "${times[strata]}" | grep . | median)
dk=$(tr ' ' '\n' <<< "${times[docker]}" | grep . | median)
ar=$(tr ' ' '\n' <<< "${times[archive]}" | grep . | median)
fl=$(tr ' ' '\n' <<< "${times[floor]}" | grep . | median)
printf 'overlay: %s bytes (config + layers), of which %s in layers the base does not have\n' "$image_bytes" "$new_bytes"
printf '%-34s %8s s  %12s bytes sent\n' "strata → containerd:" "$s" "$strata_bytes"
printf '%-34s %8s s  %12s bytes sent  (%.1f×)\n' "docker save | ctr images import" "$dk" "$docker_bytes" "$(echo "$dk / $s" | bc -l)"
printf '%-34s %8s s  %12s bytes sent  (%.1f×)\n' "strata → oci-archive + ctr import" "$ar" "$archive_bytes" "$(echo "$ar / $s" | bc -l)"
printf '%-34s %8s s  %12s bytes sent  (strata at %.0f %% of it)\n' "floor: ctr content ingest (layers)" "$fl" "$new_bytes" "$(echo "100 * $fl / $s" | bc -l)"
echo "runs: strata ${times[strata]}| docker ${times[docker]}| archive ${times[archive]}| floor ${times[floor]}"
