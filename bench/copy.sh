#!/usr/bin/env bash
# Copy benchmarks (issue 2): strata against skopeo between two local
# docker-registry instances, measured side by side in one run.
#
#   1. registry → registry copy of an image of 8 random (incompressible) tar
#      layers totalling TOTAL_MB (default 400): median of REPS runs each,
#      interleaved, every run into a freshly wiped destination registry;
#      goal strata ≥ 2× faster. Beside them, the ceiling: the same blobs
#      moved by plain curl (GET piped into a monolithic PUT, JOBS at once,
#      then the manifest PUT), what the two registries allow; goal strata
#      ≥ 90 % of it.
#   2. no-op re-copy (destination complete): time and HTTP requests each tool
#      sends, counted from both registries' access logs; goal ≤ 2 for strata.
#   3. peak RSS (/usr/bin/time -v) of strata copying a BIG_MB (default 1024)
#      single-blob image registry → registry, registry → layout and
#      layout → registry; goal ≤ 64 MiB.
#   4. SHA-256 throughput of strata's Hasher (bench binary) against
#      `openssl speed -evp sha256`; goal ≥ 90 %.
#
# usage: bench/copy.sh [STRATA] [SHA256_BENCH]
#   STRATA        the strata binary (default: `strata` on PATH)
#   SHA256_BENCH  strata_sha256_bench, built with -DSTRATA_BENCH=ON (optional;
#                 without it section 4 is skipped)
# env: REPS (3), TOTAL_MB (400), BIG_MB (1024), JOBS (strata --jobs, default 4)
#
# Everything lives in one temp dir; the registries listen on 127.0.0.1 with
# kernel-chosen ports and are stopped by PID on exit.
set -euo pipefail
STRATA=${1:-${STRATA:-strata}}
SHA_BENCH=${2:-${SHA256_BENCH:-}}
REPS=${REPS:-3}
TOTAL_MB=${TOTAL_MB:-400}
BIG_MB=${BIG_MB:-1024}
JOBS=${JOBS:-4}
STRATA=$(command -v "$STRATA" || true)
[ -n "$STRATA" ] && [ -x "$STRATA" ] || { echo "copy.sh: strata binary not found" >&2; exit 1; }
for tool in docker-registry skopeo python3 /usr/bin/time openssl curl xargs; do
  command -v "$tool" >/dev/null || { echo "copy.sh: needs $tool" >&2; exit 1; }
done
[ "$REPS" -ge 1 ] && [ "$REPS" -le 20 ] || { echo "copy.sh: REPS must be 1..20" >&2; exit 1; }

work=$(mktemp -d /tmp/strata-copy-bench.XXXXXX)
declare -A REG_PID REG_PORT
cleanup() {
  for name in "${!REG_PID[@]}"; do stop_registry "$name"; done
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- registries ---------------------------------------------------------------
start_registry() {  # NAME: fresh data dir, access log on, port from the log
  local name=$1 dir=$work/reg-$1
  rm -rf "$dir"; mkdir -p "$dir/data"
  cat > "$dir/config.yml" <<EOF
version: 0.1
log:
  level: info
  accesslog:
    disabled: false
storage:
  filesystem:
    rootdirectory: $dir/data
  delete:
    enabled: true
  maintenance:
    uploadpurging:
      enabled: false
http:
  addr: 127.0.0.1:0
  secret: bench-secret-not-for-production
EOF
  # Access log lines go to stdout, the "listening on" line to stderr.
  docker-registry serve "$dir/config.yml" > "$dir/access.log" 2> "$dir/registry.log" &
  REG_PID[$name]=$!
  local port="" i
  for i in $(seq 1 200); do
    port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$dir/registry.log" 2>/dev/null | head -1 | sed 's/.*://' || true)
    [ -n "$port" ] && break
    kill -0 "${REG_PID[$name]}" 2>/dev/null || { cat "$dir/registry.log" >&2; echo "registry $name died" >&2; exit 1; }
    sleep 0.05
  done
  [ -n "$port" ] || { echo "registry $name did not start" >&2; exit 1; }
  REG_PORT[$name]=$port
}
stop_registry() {
  local name=$1 pid=${REG_PID[$1]:-} i
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || true
  for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset "REG_PID[$name]"
}
restart_registry() { stop_registry "$1"; start_registry "$1"; }
requests() {  # NAME: HTTP requests in the access log so far
  grep -cE '"(GET|HEAD|POST|PUT|PATCH|DELETE) /' "$work/reg-$1/access.log" || true
}
request_summary() {  # NAME FROM_LINE: "GET /v2/ ×1, ..." of lines after FROM_LINE
  grep -E '"(GET|HEAD|POST|PUT|PATCH|DELETE) /' "$work/reg-$1/access.log" | tail -n +"$(($2 + 1))" |
    sed -E 's/.*"(GET|HEAD|POST|PUT|PATCH|DELETE) ([^ ?]*)[^"]*" ([0-9]+).*/\1 \2 \3/' |
    sed -E 's#/(blobs|manifests)/sha256:[0-9a-f]+#/\1/<digest>#; s#/uploads/[^ ]*#/uploads/<id>#' |
    sort | uniq -c | awk '{printf "%s%s %s %s x%s", (NR>1?"; ":""), $2, $3, $4, $1}'
}

# --- images -------------------------------------------------------------------
# OCI layouts of tar+gzip layers, each one file of seeded random bytes:
# incompressible and identical on every run (fixed seeds, mtimes, owners).
make_layout() {  # DIR TAG SIZES_MB...
  python3 - "$@" <<'PY'
import gzip, hashlib, io, json, os, random, sys, tarfile
out, tag, sizes = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3:]]
os.makedirs(f"{out}/blobs/sha256", exist_ok=True)
with open(f"{out}/oci-layout", "w") as f: f.write('{"imageLayoutVersion":"1.0.0"}')

def put(data):
    d = hashlib.sha256(data).hexdigest()
    with open(f"{out}/blobs/sha256/{d}", "wb") as f: f.write(data)
    return d

class RandomFile(io.RawIOBase):
    def __init__(self, seed, size): self.r, self.left = random.Random(seed), size
    def readable(self): return True
    def readinto(self, b):
        n = min(len(b), self.left)
        b[:n] = self.r.randbytes(n); self.left -= n
        return n

class HashingWriter(io.RawIOBase):
    def __init__(self, f): self.f, self.h, self.n = f, hashlib.sha256(), 0
    def writable(self): return True
    def write(self, b): self.f.write(b); self.h.update(b); self.n += len(b); return len(b)

class DiffHasher(io.RawIOBase):  # the tar stream: its digest is the diff_id
    def __init__(self, f): self.f, self.h = f, hashlib.sha256()
    def writable(self): return True
    def write(self, b): self.f.write(b); self.h.update(b); return len(b)

layers, diffs = [], []
for i, mb in enumerate(sizes):
    tmp = f"{out}/blobs/sha256/tmp-{i}"
    with open(tmp, "wb") as raw:
        hw = HashingWriter(raw)
        # gzip level 0 (stored blocks) of random data: a real gzip layer, as
        # registries hold, that no tool recompresses (skopeo would gzip an
        # uncompressed layer for a registry destination).
        with gzip.GzipFile(fileobj=hw, mode="wb", compresslevel=0, mtime=0) as gz:
            dh = DiffHasher(gz)
            with tarfile.open(fileobj=dh, mode="w|", format=tarfile.PAX_FORMAT) as tf:
                ti = tarfile.TarInfo(f"layer{i}/random.bin"); ti.size = mb << 20; ti.mtime = 0; ti.mode = 0o644
                tf.addfile(ti, io.BufferedReader(RandomFile(f"{tag}-{i}", ti.size), 1 << 20))
    d = hw.h.hexdigest()
    os.replace(tmp, f"{out}/blobs/sha256/{d}")
    layers.append({"mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "digest": f"sha256:{d}", "size": hw.n})
    diffs.append(f"sha256:{dh.h.hexdigest()}")
config = json.dumps({"architecture": "amd64", "os": "linux", "config": {},
                     "rootfs": {"type": "layers", "diff_ids": diffs}}, separators=(",", ":")).encode()
cd = put(config)
manifest = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
                       "config": {"mediaType": "application/vnd.oci.image.config.v1+json",
                                  "digest": f"sha256:{cd}", "size": len(config)},
                       "layers": layers}, separators=(",", ":")).encode()
md = put(manifest)
index = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
         "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": f"sha256:{md}",
                        "size": len(manifest), "annotations": {"org.opencontainers.image.ref.name": tag}}]}
with open(f"{out}/index.json", "w") as f: json.dump(index, f)
print(f"sha256:{md}")
PY
}

now() { date +%s.%N; }
# CPU seconds (user + system) a process has used; with "children", what its
# waited-for descendants used (for this shell: every tool it ran).
HZ=$(getconf CLK_TCK)
proc_cpu() {  # PID [children]
  awk -v kids="${2:-}" -v hz="$HZ" '{ sub(/^.*\) /, ""); print (kids ? $14 + $15 : $12 + $13) / hz }' "/proc/$1/stat"
}
sub() { python3 -c "import sys; print(f'{float(sys.argv[1]) - float(sys.argv[2]):.2f}')" "$1" "$2"; }
elapsed() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.2f}')" "$1" "$2"; }
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print(f'{a/b:.2f}' if b>0 else 'n/a')" "$1" "$2"; }

strata_copy() {  # SRC DST
  "$STRATA" -q --jobs "$JOBS" --insecure-registry "127.0.0.1:${REG_PORT[A]}" \
    --insecure-registry "127.0.0.1:${REG_PORT[B]}" copy "$1" "$2" >/dev/null
}
skopeo_copy() {  # SRC DST
  skopeo copy -q --src-tls-verify=false --dest-tls-verify=false "$1" "$2" >/dev/null
}
# The ceiling: each blob of $work/img streamed GET → PUT by curl, JOBS at once,
# then the manifest. SRC and DST are docker://HOST/REPO:TAG.
curl_blob() {  # SRC_BASE DST_BASE DIGEST
  local loc
  loc=$(curl -sf -X POST -D - -o /dev/null "$2/blobs/uploads/" | tr -d '\r' | sed -n 's/^[Ll]ocation: //p')
  case $loc in http*) ;; *) loc="${2%%/v2/*}$loc" ;; esac
  case $loc in *\?*) loc="$loc&digest=$3" ;; *) loc="$loc?digest=$3" ;; esac
  curl -sf "$1/blobs/$3" | curl -sf -X PUT -H 'Content-Type: application/octet-stream' -T - "$loc" -o /dev/null
}
export -f curl_blob
curl_copy() {  # SRC DST
  local src=${1#docker://} dst=${2#docker://}
  local sbase="http://${src%%/*}/v2/${src#*/}" dbase="http://${dst%%/*}/v2/${dst#*/}"
  sbase=${sbase%:*} dbase=${dbase%:*}
  local tag=${dst##*:} manifest
  manifest=$(python3 -c 'import json,sys; i=json.load(open(sys.argv[1]+"/index.json")); print(i["manifests"][0]["digest"])' "$work/img")
  python3 -c 'import json,sys; m=json.load(open(sys.argv[1]+"/blobs/sha256/"+sys.argv[2][7:]))
print(m["config"]["digest"]); [print(l["digest"]) for l in m["layers"]]' "$work/img" "$manifest" |
    xargs -P "$JOBS" -I{} bash -c 'curl_blob "$0" "$1" "$2"' "$sbase" "$dbase" {}
  curl -sf "$sbase/manifests/$manifest" -H 'Accept: application/vnd.oci.image.manifest.v1+json' |
    curl -sf -X PUT -H 'Content-Type: application/vnd.oci.image.manifest.v1+json' --data-binary @- \
      "$dbase/manifests/$tag" -o /dev/null
}

echo "== building images in $work (8 layers, $TOTAL_MB MB; one ${BIG_MB} MiB blob)" >&2
# 8 layers of decreasing size summing to TOTAL_MB (weights 20,16,14,12,12,10,9,7 %).
sizes=() ; left=$TOTAL_MB
for w in 20 16 14 12 12 10 9; do s=$((TOTAL_MB * w / 100)); sizes+=("$s"); left=$((left - s)); done
sizes+=("$left")
digest=$(make_layout "$work/img" v1 "${sizes[@]}")
start_registry A
start_registry B
A=127.0.0.1:${REG_PORT[A]}
strata_copy "oci:$work/img:v1" "docker://$A/bench/src:v1"

# --- 1. registry → registry ---------------------------------------------------
echo "== 1. copy A → B, $REPS runs each, interleaved, fresh destination registry per run" >&2
# Beside the wall time, the CPU each side used: registry A (serving),
# registry B (receiving, verifying, writing) and the tool (with its children).
t_strata=() t_skopeo=() t_curl=()
declare -A CPU  # "TOOL WHAT" -> CPU seconds of each run, space-separated
for i in $(seq 1 "$REPS"); do
  order=(strata skopeo curl); [ $((i % 2)) -eq 0 ] && order=(curl skopeo strata)
  for tool in "${order[@]}"; do
    restart_registry B
    B=127.0.0.1:${REG_PORT[B]}
    a0=$(proc_cpu "${REG_PID[A]}"); b0=$(proc_cpu "${REG_PID[B]}"); c0=$(proc_cpu $$ children)
    t0=$(now)
    "${tool}_copy" "docker://$A/bench/src:v1" "docker://$B/bench/dst:v1"
    t=$(elapsed "$t0" "$(now)")
    CPU[$tool A]+="$(sub "$(proc_cpu "${REG_PID[A]}")" "$a0") "
    CPU[$tool B]+="$(sub "$(proc_cpu "${REG_PID[B]}")" "$b0") "
    CPU[$tool tool]+="$(sub "$(proc_cpu $$ children)" "$c0") "
    echo "   run $i $tool: $t s" >&2
    case $tool in strata) t_strata+=("$t") ;; skopeo) t_skopeo+=("$t") ;; curl) t_curl+=("$t") ;; esac
    # Every tool must leave the same digest (bit-exact copy).
    got=$(skopeo inspect --tls-verify=false --raw "docker://$B/bench/dst:v1" | sha256sum | cut -d' ' -f1)
    [ "sha256:$got" = "$digest" ] || { echo "copy.sh: $tool left sha256:$got, not $digest" >&2; exit 1; }
  done
done
m_strata=$(median "${t_strata[@]}"); m_skopeo=$(median "${t_skopeo[@]}"); m_curl=$(median "${t_curl[@]}")
# shellcheck disable=SC2086  # the lists are space-separated numbers
cpu_med() { median ${CPU[$1 $2]}; }

# --- 2. no-op re-copy -----------------------------------------------------------
echo "== 2. no-op re-copy (destination complete)" >&2
restart_registry B
B=127.0.0.1:${REG_PORT[B]}
strata_copy "docker://$A/bench/src:v1" "docker://$B/bench/dst:v1"
noop() {  # TOOL: prints "SECONDS REQUESTS_A REQUESTS_B SUMMARY"
  local a0 b0 t0 t
  a0=$(requests A); b0=$(requests B)
  t0=$(now)
  "${1}_copy" "docker://$A/bench/src:v1" "docker://$B/bench/dst:v1"
  t=$(elapsed "$t0" "$(now)")
  sleep 0.2  # the access log line is written after the response
  echo "$t $(( $(requests A) - a0 )) $(( $(requests B) - b0 )) A: $(request_summary A "$a0") | B: $(request_summary B "$b0")"
}
n_strata_t=() n_skopeo_t=() n_strata_r="" n_skopeo_r=""
for i in $(seq 1 "$REPS"); do
  read -r t ra rb rest < <(noop strata); n_strata_t+=("$t"); n_strata_r="$ra+$rb"; s_summary=$rest
  read -r t ra rb rest < <(noop skopeo); n_skopeo_t+=("$t"); n_skopeo_r="$ra+$rb"; k_summary=$rest
done
nm_strata=$(median "${n_strata_t[@]}"); nm_skopeo=$(median "${n_skopeo_t[@]}")
echo "   strata requests: $s_summary" >&2
echo "   skopeo requests: $k_summary" >&2

# --- 3. peak RSS for one big blob ---------------------------------------------
echo "== 3. peak RSS, one ${BIG_MB} MiB blob" >&2
make_layout "$work/big" v1 "$BIG_MB" >/dev/null
restart_registry B
B=127.0.0.1:${REG_PORT[B]}
rss() {  # SRC DST → peak RSS in MiB
  local out=$work/time.txt
  /usr/bin/time -v -o "$out" "$STRATA" -q --jobs "$JOBS" --insecure-registry "$A" --insecure-registry "$B" \
    copy "$1" "$2" >/dev/null
  awk '/Maximum resident set size/ {printf "%.1f", $NF / 1024}' "$out"
}
rss_l2r=$(rss "oci:$work/big:v1" "docker://$A/bench/big:v1")
rss_r2r=$(rss "docker://$A/bench/big:v1" "docker://$B/bench/big:v1")
rss_r2l=$(rss "docker://$A/bench/big:v1" "oci:$work/big-out:v1")
rm -rf "$work/big" "$work/big-out"

# --- 4. SHA-256 -----------------------------------------------------------------
sha_strata="" sha_openssl=""
if [ -n "$SHA_BENCH" ]; then
  echo "== 4. SHA-256 throughput" >&2
  # Interleaved, median of 3 each: the machine is shared.
  s=() o=()
  for i in 1 2 3; do
    s+=("$("$SHA_BENCH" 256 3 | sed -n 's/^median_mb_s=//p')")
    # openssl speed reports 1000s of bytes per second for 1 MiB blocks.
    o+=("$(openssl speed -evp sha256 -bytes 1048576 -seconds 2 2>/dev/null |
           awk '$1 == "sha256" {v=$2; sub(/k$/, "", v); printf "%.1f", v / 1000}')")
  done
  sha_strata=$(median "${s[@]}"); sha_openssl=$(median "${o[@]}")
fi

# --- results --------------------------------------------------------------------
goal() { python3 -c "import sys; print('met' if eval(sys.argv[1]) else 'MISSED')" "$1"; }
echo
echo "strata copy benchmark: $(nproc) cores, ${TOTAL_MB} MB image in 8 layers, median of $REPS, jobs=$JOBS"
printf '%-44s %12s %12s %9s  %s\n' "measure" "strata" "other" "ratio" "goal"
printf '%-44s %12s %12s %9s  %s\n' "copy A→B (s), other = skopeo" "$m_strata" "$m_skopeo" "$(ratio "$m_skopeo" "$m_strata")x" \
  "≥2x faster: $(goal "$m_skopeo / $m_strata >= 2")"
printf '%-44s %12s %12s %9s  %s\n' "copy A→B (s), other = curl GET|PUT" "$m_strata" "$m_curl" \
  "$(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2])*100:.0f}%')" "$m_curl" "$m_strata")" \
  "≥90% of ceiling: $(goal "$m_curl / $m_strata >= 0.9")"
printf '%-44s %12s %12s %9s  %s\n' "no-op re-copy (s)" "$nm_strata" "$nm_skopeo" "$(ratio "$nm_skopeo" "$nm_strata")x" ""
printf '%-44s %12s %12s %9s  %s\n' "no-op requests (A+B)" "$n_strata_r" "$n_skopeo_r" "" \
  "≤2: $(goal "$n_strata_r <= 2")"
printf '%-44s %12s %12s %9s  %s\n' "peak RSS ${BIG_MB} MiB blob, layout→registry (MiB)" "$rss_l2r" "" "" "≤64: $(goal "$rss_l2r <= 64")"
printf '%-44s %12s %12s %9s  %s\n' "peak RSS ${BIG_MB} MiB blob, registry→registry (MiB)" "$rss_r2r" "" "" "≤64: $(goal "$rss_r2r <= 64")"
printf '%-44s %12s %12s %9s  %s\n' "peak RSS ${BIG_MB} MiB blob, registry→layout (MiB)" "$rss_r2l" "" "" "≤64: $(goal "$rss_r2l <= 64")"
if [ -n "$sha_strata" ]; then
  printf '%-44s %12s %12s %9s  %s\n' "SHA-256 MB/s (strata vs openssl speed)" "$sha_strata" "$sha_openssl" \
    "$(python3 -c "import sys; print(f'{float(sys.argv[1])/float(sys.argv[2])*100:.0f}%')" "$sha_strata" "$sha_openssl")" \
    "≥90%: $(goal "$sha_strata / $sha_openssl >= 0.9")"
fi
echo "runs (s): strata ${t_strata[*]} | skopeo ${t_skopeo[*]} | curl ${t_curl[*]}"
# The CPU budget of a copy A→B: what each side burned (medians), and how
# much of the machine that is. The registries' share alone, spread over
# every core, is the least wall time any client could take against these two
# registries on this machine.
echo
echo "CPU seconds per copy A→B (median of $REPS): registry A, registry B, the tool; busy = all / (cores × wall)"
for tool in strata skopeo curl; do
  case $tool in strata) w=$m_strata ;; skopeo) w=$m_skopeo ;; curl) w=$m_curl ;; esac
  python3 - "$tool" "$w" "$(cpu_med "$tool" A)" "$(cpu_med "$tool" B)" "$(cpu_med "$tool" tool)" "$(nproc)" <<'PY'
import sys
tool, wall, a, b, t, cores = sys.argv[1], *map(float, sys.argv[2:6]), int(sys.argv[6])
print(f"  {tool:7} wall {wall:5.2f}  A {a:5.2f}  B {b:5.2f}  tool {t:5.2f}  busy {(a + b + t) / (cores * wall) * 100:3.0f}%"
      f"  registries alone need ≥ {(a + b) / cores:4.2f} s")
PY
done
python3 - "$m_skopeo" "$(cpu_med strata A)" "$(cpu_med strata B)" "$(nproc)" <<'PY'
import sys
skopeo, a, b, cores = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
target, bound = skopeo / 2, (a + b) / cores
print(f"2x skopeo means {target:.2f} s; the registries alone, under strata's copy, need {bound:.2f} s of "
      f"{cores} cores: {'within reach' if target >= bound else 'out of reach on this machine (the registries are the limit)'}")
PY
echo "no-op requests, strata: $s_summary"
echo "no-op requests, skopeo: $k_summary"
