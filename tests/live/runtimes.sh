#!/usr/bin/env bash
# Live tier (opt-in: STRATA_LIVE=1; ctest label `live`): the images users
# build run in the runtimes they have. The `build-essential libpq-dev`
# overlay on an mmdebstrap minbase and the README's scratch image
# (`--base scratch build-essential`) are loaded into podman (OCI layout),
# Docker (`docker load` of a docker-archive) and containerd (`ctr images
# import` of an oci-archive); in each, a C program compiles and runs and
# `dpkg -l` lists the packages (and a program links with -lpq in the overlay).
# Every runtime is private to the run: podman with its own --root/--runroot
# (vfs, runc, cgroupfs, no default ulimits), dockerd and containerd as
# daemons with their own root, state and socket under the work directory,
# stopped by PID.
#   runtimes.sh [STRATA_BINARY]
# Env: see lib.sh.
set -euo pipefail
needs="mmdebstrap podman runc dockerd containerd ctr"
source "$(dirname "$0")/lib.sh"

root=$work/root
minbase_root "$root"
[ -f "$work/minbase.tar" ] || tar -C "$root" --numeric-owner -cf "$work/minbase.tar" .
layout=$work/images
SOURCE_DATE_EPOCH=1700000000 "$strata" -q import "$work/minbase.tar" --dest "oci:$layout:minbase" \
  --platform linux/amd64 > /dev/null
t0=$(now)
"$strata" -q build --base "oci:$layout:minbase" build-essential libpq-dev --sources "$sources" \
  --platform linux/amd64 --dest "oci:$layout:overlay" > /dev/null
"$strata" -q build --base scratch build-essential --sources "$sources" --platform linux/amd64 \
  --dest "oci:$layout:scratch" > /dev/null
echo "time  strata build: the overlay and the scratch image: $(secs "$t0" "$(now)") s"
for name in overlay scratch; do
  "$strata" -q copy "oci:$layout:$name" "docker-archive:$work/$name.docker.tar:strata-live/$name:latest" > /dev/null
  "$strata" -q copy "oci:$layout:$name" "oci-archive:$work/$name.oci.tar:$name" > /dev/null
done

# What each image must do, as one sh -c script.
c_prog='printf "#include <stdio.h>\nint main(void){puts(\"hello from C\");return 0;}\n" > /tmp/t.c && cc -o /tmp/t /tmp/t.c && /tmp/t'
pq_prog='printf "#include <stdio.h>\n#include <libpq-fe.h>\nint main(void){printf(\"libpq %%d\\\\n\", PQlibVersion());return 0;}\n" > /tmp/pq.c && cc -I/usr/include/postgresql -o /tmp/pq /tmp/pq.c -lpq && /tmp/pq'
checks() {  # RUNTIME RUN-COMMAND-PREFIX... : runs every check through "PREFIX IMAGE sh -c SCRIPT"
  local rt=$1; shift
  check "$rt: overlay: cc compiles and runs C" bash -c "$(printf '%q ' "$@" overlay) sh -c '$c_prog' | grep -qx 'hello from C'"
  check "$rt: overlay: a program links with -lpq and runs" bash -c "$(printf '%q ' "$@" overlay) sh -c '$pq_prog' | grep -q '^libpq [0-9]'"
  check "$rt: overlay: dpkg -l lists build-essential and libpq-dev" bash -c \
    "$(printf '%q ' "$@" overlay) dpkg -l build-essential libpq-dev | grep -c '^ii ' | grep -qx 2"
  check "$rt: scratch: cc compiles and runs C" bash -c "$(printf '%q ' "$@" scratch) sh -c '$c_prog' | grep -qx 'hello from C'"
  check "$rt: scratch: dpkg -l lists build-essential and dpkg" bash -c \
    "$(printf '%q ' "$@" scratch) dpkg -l build-essential dpkg | grep -c '^ii ' | grep -qx 2"
}
stop_pid() { kill "$1" 2> /dev/null && wait "$1" 2> /dev/null || true; }
unmount_below() { grep -o " $1/[^ ]*" /proc/self/mounts | sort -r | xargs -r -n1 umount -l 2> /dev/null || true; }

# podman: images by OCI layout.
p=$work/podman; mkdir -p "$p"
printf '[containers]\ndefault_ulimits = []\n' > "$p/containers.conf"
podman_run() {  # IMAGE ARGS...
  local image=$1; shift
  CONTAINERS_CONF=$p/containers.conf podman --root "$p/root" --runroot "$p/run" --tmpdir "$p/tmp" \
    --storage-driver vfs --cgroup-manager cgroupfs --runtime runc --events-backend file \
    run --rm --network none "oci:$layout:$image" "$@"
}
export -f podman_run; export p layout
checks podman bash -c 'podman_run "$@"' podman_run
unmount_below "$p"

# Docker: docker load of a docker-archive into a private dockerd.
d=$work/docker; mkdir -p "$d"; echo '{}' > "$d/daemon.json"
dockerd --config-file "$d/daemon.json" --data-root "$d/data" --exec-root "$d/exec" --pidfile "$d/pid" \
  -H "unix://$d/sock" --iptables=false --ip6tables=false --bridge=none --storage-driver vfs \
  --exec-opt native.cgroupdriver=cgroupfs > "$d/log" 2>&1 &
dockerd_pid=$!
docker=/usr/bin/docker; [ -x "$docker" ] || docker=docker
for _ in $(seq 150); do DOCKER_CONFIG=$d/cli "$docker" -H "unix://$d/sock" version > /dev/null 2>&1 && break; sleep 0.2; done
for name in overlay scratch; do
  check "docker: load $name" env DOCKER_CONFIG="$d/cli" "$docker" -H "unix://$d/sock" load -i "$work/$name.docker.tar"
done
docker_run() {  # IMAGE ARGS...
  local image=$1; shift
  DOCKER_CONFIG=$d/cli "$docker" -H "unix://$d/sock" run --rm --network none "strata-live/$image:latest" "$@"
}
export -f docker_run; export d docker
checks docker bash -c 'docker_run "$@"' docker_run
stop_pid "$dockerd_pid"
unmount_below "$d"

# containerd: ctr images import of an oci-archive into a private containerd.
c=$work/containerd; mkdir -p "$c"
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
containerd_pid=$!
for _ in $(seq 150); do ctr -a "$c/sock" version > /dev/null 2>&1 && break; sleep 0.2; done
for name in overlay scratch; do
  check "containerd: import $name" ctr -a "$c/sock" -n strata-live images import --snapshotter native \
    --index-name "strata-live/$name:latest" "$work/$name.oci.tar"
done
n=0
ctr_run() {  # IMAGE ARGS...
  local image=$1; shift
  ctr -a "$c/sock" -n strata-live run --rm --snapshotter native "strata-live/$image:latest" "live-$RANDOM$RANDOM" "$@"
}
export -f ctr_run; export c
checks containerd bash -c 'ctr_run "$@"' ctr_run
stop_pid "$containerd_pid"
unmount_below "$c"

echo "summary: $failures failed checks"
[ "$failures" = 0 ]
