#!/usr/bin/env bash
# Runtime store benchmarks (issue 32): strata writing an image straight into a
# runtime's store against what users do today — strata writes a
# docker-archive and the runtime's own CLI loads it — measured side by side
# in one run, as ratios.
#
#   docker   strata copy oci:L docker-daemon:NAME  against
#            strata copy oci:L docker-archive:F + docker load -i F
#   podman   strata copy oci:L podman:NAME         against
#            strata copy oci:L docker-archive:F + podman load -i F
#
# The image: LAYERS random (incompressible) tar+gzip layers totalling
# TOTAL_MB, in an OCI layout. Each runtime is a private instance (its own
# root, state and socket in the temp dir; vfs storage), started and stopped
# by PID. Before every run the image is removed from the store, so each run
# loads every layer; the two ways alternate, REPS runs each, median shown.
# After every run the script checks the work was done: the image is in the
# store under its name with the config digest as its ID.
#
# Sections: one function per runtime, section_NAME, listed in SECTIONS (env,
# default "docker podman"); each prints its rows through report_row. A
# section is added by writing its function and naming it in SECTIONS.
#
# usage: bench/runtime_stores.sh [STRATA]
# env: REPS (3), TOTAL_MB (256), LAYERS (4), SECTIONS ("docker podman")
set -euo pipefail
STRATA=${1:-${STRATA:-strata}}
REPS=${REPS:-3}
TOTAL_MB=${TOTAL_MB:-256}
LAYERS=${LAYERS:-4}
SECTIONS=${SECTIONS:-docker podman}
STRATA=$(command -v "$STRATA" || true)
[ -n "$STRATA" ] && [ -x "$STRATA" ] || { echo "runtime_stores.sh: strata binary not found" >&2; exit 1; }
command -v python3 >/dev/null || { echo "runtime_stores.sh: needs python3" >&2; exit 1; }
command -v curl >/dev/null || { echo "runtime_stores.sh: needs curl" >&2; exit 1; }
[ "$REPS" -ge 1 ] && [ "$REPS" -le 20 ] || { echo "runtime_stores.sh: REPS must be 1..20" >&2; exit 1; }

work=$(mktemp -d /tmp/strata-runtime-bench.XXXXXX)
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  # vfs leaves mounts only while containers run; none run here.
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
home=$work/home

# --- the image ---------------------------------------------------------------
# An OCI layout at $work/layout, tag "bench": LAYERS tar+gzip layers of random
# bytes, a config naming their diff IDs. Prints the config digest.
make_image() {
  python3 - "$work/layout" "$TOTAL_MB" "$LAYERS" <<'PY'
import gzip, hashlib, io, json, os, sys, tarfile
out, total_mb, layers = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
blobs = os.path.join(out, "blobs", "sha256")
os.makedirs(blobs, exist_ok=True)
def put(data):
    d = hashlib.sha256(data).hexdigest()
    with open(os.path.join(blobs, d), "wb") as f:
        f.write(data)
    return "sha256:" + d, len(data)
per = total_mb * 1024 * 1024 // layers
descs, diffs = [], []
for i in range(layers):
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.USTAR_FORMAT) as t:
        info = tarfile.TarInfo("data/layer%d.bin" % i)
        info.size, info.mtime, info.mode = per, 0, 0o644
        t.addfile(info, io.BytesIO(os.urandom(per)))
    tar = raw.getvalue()
    diffs.append("sha256:" + hashlib.sha256(tar).hexdigest())
    d, n = put(gzip.compress(tar, compresslevel=1, mtime=0))
    descs.append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": d, "size": n})
config = json.dumps({"architecture": "amd64", "os": "linux", "config": {"Cmd": ["/data"]},
                     "rootfs": {"type": "layers", "diff_ids": diffs}}, separators=(",", ":")).encode()
cd, cn = put(config)
manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "config": {"mediaType": "application/vnd.oci.image.config.v1+json", "digest": cd, "size": cn},
                       "layers": descs}, separators=(",", ":")).encode()
md, mn = put(manifest)
with open(os.path.join(out, "oci-layout"), "w") as f:
    f.write('{"imageLayoutVersion":"1.0.0"}')
with open(os.path.join(out, "index.json"), "w") as f:
    json.dump({"schemaVersion": 2, "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json",
               "digest": md, "size": mn, "annotations": {"org.opencontainers.image.ref.name": "bench"}}]}, f)
print(cd)
PY
}

# --- timing and reporting ----------------------------------------------------
now() { date +%s.%N; }
elapsed() { python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$1" "$2"; }
median() { python3 -c "import sys, statistics; print('%.2f' % statistics.median(map(float, sys.argv[1:])))" "$@"; }
ROWS=()
# report_row LABEL STRATA_MEDIAN OTHER_MEDIAN RUNS_TEXT
report_row() {
  local ratio
  ratio=$(python3 -c "import sys; print('%.2fx' % (float(sys.argv[2]) / float(sys.argv[1])))" "$2" "$3")
  ROWS+=("$(printf '%-52s %8s %10s %8s' "$1" "$2" "$3" "$ratio")")
  ROWS+=("    runs (s): $4")
}

# The store holds NAME with image ID = the config digest: the run did the work.
check_loaded() {  # WHAT ID_GOT
  if [ "$2" != "$CONFIG" ] && [ "sha256:$2" != "$CONFIG" ]; then
    echo "runtime_stores.sh: $1: the store's image ID is '${2:-none}', not $CONFIG" >&2
    exit 1
  fi
}

# Runs the two ways REPS times, alternating. Callers define, for one runtime:
#   rt_remove        removes the image (by ID) so the next run loads every layer
#   rt_strata        the direct write (strata copy oci:… RUNTIME:NAME)
#   rt_baseline      docker-archive + the runtime's own load
#   rt_id NAME       the image ID the store has under NAME (empty when none)
measure_pair() {  # LABEL NAME_STRATA NAME_BASELINE
  local label=$1 ours=() theirs=() i t0 t1
  for i in $(seq 1 "$REPS"); do
    rt_remove
    t0=$(now); rt_strata "$2"; t1=$(now)
    ours+=("$(elapsed "$t0" "$t1")")
    check_loaded "$label, strata run $i" "$(rt_id "$2")"
    rt_remove
    t0=$(now); rt_baseline "$3"; t1=$(now)
    theirs+=("$(elapsed "$t0" "$t1")")
    check_loaded "$label, baseline run $i" "$(rt_id "$3")"
  done
  rt_remove
  report_row "$label" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" "strata ${ours[*]} | baseline ${theirs[*]}"
}

wait_for() {  # WHAT PID COMMAND...: until COMMAND succeeds (60 s) or PID exits
  local what=$1 pid=$2 i
  shift 2
  for i in $(seq 1 300); do
    "$@" >/dev/null 2>&1 && return 0
    kill -0 "$pid" 2>/dev/null || { echo "runtime_stores.sh: $what exited" >&2; return 1; }
    sleep 0.2
  done
  echo "runtime_stores.sh: $what did not answer in 60 s" >&2
  return 1
}

# --- docker ------------------------------------------------------------------
section_docker() {
  command -v dockerd >/dev/null || { echo "runtime_stores.sh: docker section needs dockerd" >&2; exit 1; }
  local d=$work/docker
  mkdir -p "$d"
  echo '{}' > "$d/daemon.json"
  DOCKER_SOCK=unix://$d/docker.sock
  dockerd --config-file "$d/daemon.json" --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/dockerd.pid" \
    -H "$DOCKER_SOCK" --iptables=false --ip6tables=false --bridge=none --storage-driver vfs \
    --exec-opt native.cgroupdriver=cgroupfs > "$d/dockerd.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  wait_for dockerd "$pid" docker -H "$DOCKER_SOCK" version || { cat "$d/dockerd.log" >&2; exit 1; }
  rt_remove() { docker -H "$DOCKER_SOCK" rmi -f "$CONFIG" >/dev/null 2>&1 || true; }
  rt_strata() { DOCKER_HOST=$DOCKER_SOCK "$STRATA" -q --home "$home" copy "oci:$work/layout:bench" "docker-daemon:$1" >/dev/null; }
  rt_baseline() {
    "$STRATA" -q --home "$home" copy "oci:$work/layout:bench" "docker-archive:$work/image.tar:$1" >/dev/null
    docker -H "$DOCKER_SOCK" load -q -i "$work/image.tar" >/dev/null
    rm -f "$work/image.tar"
  }
  rt_id() { docker -H "$DOCKER_SOCK" image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
  measure_pair "docker: write into the store (s), other = archive+load" strata-bench/img:direct strata-bench/img:archive
  kill "$pid"
  wait "$pid" 2>/dev/null || true
}

# --- podman ------------------------------------------------------------------
section_podman() {
  command -v podman >/dev/null || { echo "runtime_stores.sh: podman section needs podman" >&2; exit 1; }
  local d=$work/podman
  mkdir -p "$d"
  printf '[containers]\ndefault_ulimits = []\n' > "$d/containers.conf"
  export CONTAINERS_CONF=$d/containers.conf
  PODMAN=(podman --root "$d/root" --runroot "$d/run" --tmpdir "$d/tmp" --storage-driver vfs --cgroup-manager cgroupfs
          --runtime runc --events-backend file)
  PODMAN_SOCK=$d/podman.sock
  "${PODMAN[@]}" system service --time=0 "unix://$PODMAN_SOCK" > "$d/service.log" 2>&1 &
  local pid=$!
  PIDS+=("$pid")
  wait_for "podman system service" "$pid" curl -sf --unix-socket "$PODMAN_SOCK" http://localhost/_ping ||
    { cat "$d/service.log" >&2; exit 1; }
  rt_remove() { "${PODMAN[@]}" rmi -f "${CONFIG#sha256:}" >/dev/null 2>&1 || true; }
  rt_strata() { CONTAINER_HOST=unix://$PODMAN_SOCK "$STRATA" -q --home "$home" copy "oci:$work/layout:bench" "podman:$1" >/dev/null; }
  rt_baseline() {
    "$STRATA" -q --home "$home" copy "oci:$work/layout:bench" "docker-archive:$work/image.tar:$1" >/dev/null
    "${PODMAN[@]}" load -q -i "$work/image.tar" >/dev/null
    rm -f "$work/image.tar"
  }
  rt_id() { "${PODMAN[@]}" image inspect --format '{{.Id}}' "docker.io/$1" 2>/dev/null || true; }
  measure_pair "podman: write into the store (s), other = archive+load" strata-bench/img:direct strata-bench/img:archive
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  unset CONTAINERS_CONF
}

CONFIG=$(make_image)
echo "strata runtime store benchmark: $(nproc) cores, ${TOTAL_MB} MB image in $LAYERS layers, median of $REPS"
for s in $SECTIONS; do
  declare -F "section_$s" >/dev/null || { echo "runtime_stores.sh: no section '$s'" >&2; exit 1; }
  "section_$s"
done
printf '%-52s %8s %10s %8s\n' measure strata baseline ratio
printf '%s\n' "${ROWS[@]}"
echo "ratio = baseline / strata (above 1: strata faster); every run checked: image ID = $CONFIG"
