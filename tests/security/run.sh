#!/usr/bin/env bash
# The security tier: every class of hostile input and concurrent use found so
# far, re-run end to end against the strata binary, as a user or an attacker
# would (the command line only). Usage: tests/security/run.sh STRATA_BINARY
#
# Each case runs in its own temporary directory with its own STRATA_HOME, every
# command under `timeout` (a timeout is a hang), every server on a loopback
# ephemeral port; everything is stopped and removed on exit. Each case prints
#   case NAME: handled|refused|defect (why)
# handled = strata did the right thing; refused = a non-zero exit (1 or 2) with a
# clear message naming the input, nothing lost; defect = a crash (exit >= 128), a
# hang, corrupt or lost data, a wrong grant, raw control characters printed, or
# an unclear message. Then `security: N handled, N refused, N defect` and the
# closing line `N passed, N failed` (passed = handled + refused) that CI reads.
# Exit 1 when any case is a defect. SECURITY_CASES="a b" runs only those cases;
# SECURITY_KEEP=1 keeps the work directory (each command's .out and .err).
# A second argument K/N runs the K-th of N shards (every N-th case from the
# K-th): ctest runs the tier as three shards beside the other tests.
set -u

usage="usage: tests/security/run.sh STRATA_BINARY [K/N]"
strata=${1:?$usage}
shard=${2:-1/1}
if ! [[ $shard =~ ^([1-9][0-9]*)/([1-9][0-9]*)$ ]] || [ "${BASH_REMATCH[1]}" -gt "${BASH_REMATCH[2]}" ]; then
  echo "security: shard '$shard' is not K/N with 1 <= K <= N; $usage" >&2
  exit 2
fi
shard_k=${BASH_REMATCH[1]}
shard_n=${BASH_REMATCH[2]}
strata=$(realpath "$strata")
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tool=(python3 "$here/tool.py")

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-security-XXXXXX")
results=$work/results
: >"$results"
# Servers, gpg homes and mounts are recorded in files: cases run in subshells.
: >"$work/pids"
: >"$work/gnupg"
: >"$work/mounts"

cleanup() {
  local p m g
  while read -r p; do kill "$p" 2>/dev/null; done <"$work/pids"
  while read -r p; do while kill -0 "$p" 2>/dev/null; do sleep 0.1; done; done <"$work/pids"
  while read -r g; do GNUPGHOME=$g gpgconf --kill gpg-agent >/dev/null 2>&1; done <"$work/gnupg"
  while read -r m; do umount "$m" 2>/dev/null; done <"$work/mounts"
  if [ -n "${SECURITY_KEEP:-}" ]; then echo "security: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --- helpers ---------------------------------------------------------------

verdict() {  # NAME CLASS WHY
  printf 'case %s: %s (%s)\n' "$1" "$2" "$3" | tee -a "$results"
}

newcase() {  # NAME — sets d (the caller's local) to a fresh directory with its own home
  d=$work/case-$1
  mkdir -p "$d/home" "$d/tmp"
  export STRATA_HOME=$d/home
}

# run SECONDS NAME CMD… — the command under timeout; stdout in $d/NAME.out,
# stderr in $d/NAME.err; sets rc.
run() {
  local secs=$1 name=$2
  shift 2
  timeout -k 5 "$secs" "$@" >"$d/$name.out" 2>"$d/$name.err" </dev/null
  rc=$?
}
S() { "$strata" "$@"; }  # outside `run` only (timeout runs programs, not functions)

# A one-word diagnosis of an exit code, or "" when it is an ordinary exit.
broken() {  # RC
  if [ "$1" -eq 124 ] || [ "$1" -eq 137 ]; then echo "hang: killed by timeout"
  elif [ "$1" -ge 128 ]; then echo "crash: signal $(($1 - 128))"
  elif [ "$1" -eq 127 ]; then echo "could not run"
  fi
}

lastline() { grep -v '^[[:space:]]*$' "$1" | tail -n1 | cut -c1-400; }

# clear ERRFILE NEEDLE… — the message is clear: no raw control characters, at
# most a few lines, and it names one of the needles (the input, the rule).
clear_message() {
  local err=$1 n
  shift
  "${tool[@]}" controls "$err" >/dev/null || return 1
  [ "$(wc -l <"$err")" -le 12 ] || return 1
  for n in "$@"; do grep -qiF -- "$n" "$err" && return 0; done
  return 1
}

# judge NAME RC ERRFILE NEEDLE… — the usual verdict of a command that must
# refuse its input: a refusal with a clear message, else a defect.
judge_refusal() {
  local name=$1 code=$2 err=$3 b
  shift 3
  b=$(broken "$code")
  if [ -n "$b" ]; then verdict "$name" defect "$b"
  elif [ "$code" -eq 0 ]; then verdict "$name" defect "accepted: exit 0"
  elif { [ "$code" -eq 1 ] || [ "$code" -eq 2 ]; } && clear_message "$err" "$@"; then
    verdict "$name" refused "$(lastline "$err")"
  else verdict "$name" defect "unclear message (exit $code): $(lastline "$err")"
  fi
}

start_server() {  # VAR LOG CMD… — starts a server, sets VAR to the host:port it logged
  # (locals prefixed: printf -v must not land in a local of this function)
  local _var=$1 _log=$2 _i _addr _pid
  shift 2
  "$@" >"$_log" 2>"$_log.err" </dev/null &
  _pid=$!
  echo "$_pid" >>"$work/pids"
  for _i in $(seq 1 300); do
    _addr=$(sed -n -e 's/.*listening on \([0-9.]*:[0-9]*\).*/\1/p' -e 's/^PORT \([0-9]*\)$/127.0.0.1:\1/p' \
      "$_log" "$_log.err" 2>/dev/null | head -n1)
    if [ -n "$_addr" ]; then printf -v "$_var" %s "$_addr"; return 0; fi
    kill -0 "$_pid" 2>/dev/null || break
    sleep 0.1
  done
  echo "server did not start: $* ($(tail -n2 "$_log.err"))" >&2
  return 1
}

layout_ok() {  # DIR [TAG…] — blobs hash to their names, index.json names only present blobs, tags present
  local dir=$1
  shift
  "${tool[@]}" verify-layout "$dir" "$@" >"$dir.blobs" 2>"$dir.bad" || { echo "$(head -n1 "$dir.bad")"; return 1; }
}

# --- shared fixtures ---------------------------------------------------------

fix=$work/fixtures
mkdir -p "$fix/home"
export SOURCE_DATE_EPOCH=1700000000
setup_fixtures() {
  STRATA_HOME=$fix/home
  export STRATA_HOME
  "${tool[@]}" rootfs "$fix/big.tar" big 8 || return 1
  local i
  for i in 1 2 3 4; do
    S -q import "$fix/big.tar" --platform linux/amd64 --change "ENV VARIANT=$i" --dest "oci:$fix/src:v$i" \
      >/dev/null 2>"$fix/import.err" || { echo "import failed: $(cat "$fix/import.err")" >&2; return 1; }
  done
  S -q copy "oci:$fix/src:v1" "oci:$fix/src:img" >/dev/null 2>&1 || return 1
  cat >"$fix/registry.yml" <<EOF
version: 0.1
log:
  level: info
storage:
  filesystem:
    rootdirectory: $fix/registry-data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:0
  secret: security-tier-not-for-production
EOF
  start_server registry "$fix/registry.log" /usr/bin/docker-registry serve "$fix/registry.yml" || return 1
  for i in 1 2 3 4; do
    S -q --insecure-registry "$registry" copy "oci:$fix/src:v$i" "docker://$registry/team/app:v$i" >/dev/null \
      2>"$fix/push.err" || { echo "push failed: $(cat "$fix/push.err")" >&2; return 1; }
  done
}

archive_sources=""
setup_archive() {  # the fixture apt archive (tests/support/make_archive.sh), served on loopback
  echo "$fix/archive/main/gnupg" >>"$work/gnupg"
  "$root/tests/support/make_archive.sh" build "$fix/archive/main" >/dev/null 2>"$fix/archive.err" || return 1
  local addr
  start_server addr "$fix/archive.log" python3 "$root/tests/support/archive_server.py" "$fix/archive" || return 1
  archive_sources=$fix/fixture.list
  echo "deb [signed-by=$fix/archive/main/keyring.gpg] http://$addr/main stable main" >"$archive_sources"
}
need_archive() { [ -n "$archive_sources" ] || { verdict "$1" defect "the fixture archive did not start: $(lastline "$fix/archive.err")"; return 1; }; }

# ==== 1. Concurrent writers ===================================================

case_concurrent_copy() {
  local d
  newcase concurrent_copy
  local round i bad="" dst pids_c=() rcs
  for round in 1 2 3 4; do
    # Rounds 1-3 each create a fresh layout (creation races too); round 4 adds to round 3's.
    [ "$round" -le 3 ] && dst=$d/dst$round
    # A reader hashes every committed blob while the writers run: a blob ever
    # seen under its name with other bytes was written in place.
    ( while [ ! -e "$d/stop" ]; do
        [ -f "$dst/index.json" ] && ! "${tool[@]}" verify-layout "$dst" >/dev/null 2>>"$d/watch.bad" && [ -s "$d/watch.bad" ] && break
        sleep 0.05
      done ) &
    local watcher=$!
    pids_c=()
    for i in $(seq 1 12); do
      timeout -k 5 120 "$strata" -q copy "oci:$fix/src:img" "oci:$dst:r$round-$i" >"$d/c$round-$i.out" 2>"$d/c$round-$i.err" &
      pids_c+=($!)
    done
    i=0
    for p in "${pids_c[@]}"; do
      i=$((i + 1))
      wait "$p"
      rcs=$?
      if [ "$rcs" -ne 0 ]; then
        bad=${bad:-"round $round: copy $i exit $rcs$( [ -n "$(broken $rcs)" ] && echo " ($(broken $rcs))"): $(lastline "$d/c$round-$i.err")"}
      fi
    done
    touch "$d/stop"
    wait "$watcher"
    rm -f "$d/stop"
    if [ -s "$d/watch.bad" ]; then bad=${bad:-"round $round: seen while the writers ran: $(head -n1 "$d/watch.bad")"}; fi
    local tags=()
    for i in $(seq 1 12); do tags+=("r$round-$i"); done
    local why
    why=$(layout_ok "$dst" "${tags[@]}") || bad=${bad:-"round $round: $why"}
    # Blobs committed in an earlier round keep their bytes and size.
    if [ "$round" -eq 4 ] && [ -n "$(comm -23 <(sort "$d/dst3.blobs.r3") <(sort "$dst.blobs"))" ]; then
      bad=${bad:-"round 4: a blob committed in round 3 changed or went: $(comm -23 <(sort "$d/dst3.blobs.r3") <(sort "$dst.blobs") | head -n1)"}
    fi
    [ "$round" -eq 3 ] && cp "$dst.blobs" "$d/dst3.blobs.r3"
    run 60 inspect$round "$strata" inspect "oci:$dst:r$round-1"
    [ "$rc" -eq 0 ] || bad=${bad:-"round $round: strata inspect of the result exit $rc: $(lastline "$d/inspect$round.err")"}
    run 60 skopeo$round skopeo inspect "oci:$dst:r$round-12"
    [ "$rc" -eq 0 ] || bad=${bad:-"round $round: skopeo inspect exit $rc: $(lastline "$d/skopeo$round.err")"}
  done
  if [ -n "$bad" ]; then verdict concurrent_copy defect "$bad"
  else verdict concurrent_copy handled "4 rounds of 12 concurrent copies into one layout: every copy exit 0, every blob verifies, every tag present"
  fi
}

mirror_config() {  # FILE DEST [PARALLEL]
  cat >"$1" <<EOF
parallel: ${3:-2}
registries:
  $registry:
    tls-verify: false
repositories:
  - source: docker://$registry/team/app
    destination: $2
EOF
}

case_mirror_parallel() {
  local d why
  newcase mirror_parallel
  mirror_config "$d/mirror.yaml" "oci:$d/out" 2
  run 180 mirror "$strata" mirror --config "$d/mirror.yaml"
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict mirror_parallel defect "$b"
  elif [ "$rc" -ne 0 ]; then verdict mirror_parallel defect "mirror exit $rc: $(lastline "$d/mirror.err")"
  elif ! why=$(layout_ok "$d/out" v1 v2 v3 v4); then verdict mirror_parallel defect "$why"
  else verdict mirror_parallel handled "parallel: 2, 4 images sharing a layer: exit 0, layout verifies"
  fi
}

case_two_mirrors_one_home() {
  local d why
  newcase two_mirrors_one_home
  mirror_config "$d/mirror.yaml" "oci:$d/out" 2
  timeout -k 5 180 "$strata" mirror --config "$d/mirror.yaml" >"$d/m1.out" 2>"$d/m1.err" &
  local p1=$!
  timeout -k 5 180 "$strata" mirror --config "$d/mirror.yaml" >"$d/m2.out" 2>"$d/m2.err" &
  local p2=$!
  wait $p1
  local rc1=$?
  wait $p2
  local rc2=$?
  if [ -n "$(broken $rc1)$(broken $rc2)" ]; then verdict two_mirrors_one_home defect "$(broken $rc1)$(broken $rc2)"
  elif [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then
    verdict two_mirrors_one_home defect "exits $rc1/$rc2: $(lastline "$d/m1.err") | $(lastline "$d/m2.err")"
  elif ! why=$(layout_ok "$d/out" v1 v2 v3 v4); then verdict two_mirrors_one_home defect "$why"
  else verdict two_mirrors_one_home handled "both exit 0 into one layout and one home, layout verifies"
  fi
}

case_mirror_beside_bundle() {
  local d why
  newcase mirror_beside_bundle
  mirror_config "$d/mirror.yaml" "oci:$d/out" 2
  cat >"$d/bundle.yaml" <<EOF
registries:
  $registry:
    tls-verify: false
images:
  - source: docker://$registry/team/app:v1
    destination: docker://registry.example/team/app:v1
  - source: docker://$registry/team/app:v2
    destination: docker://registry.example/team/app:v2
EOF
  timeout -k 5 180 "$strata" mirror --config "$d/mirror.yaml" >"$d/m.out" 2>"$d/m.err" &
  local p1=$!
  timeout -k 5 180 "$strata" bundle create --out "$d/bundle" --mirror "$d/bundle.yaml" >"$d/b.out" 2>"$d/b.err" &
  local p2=$!
  wait $p1
  local rc1=$?
  wait $p2
  local rc2=$?
  if [ -n "$(broken $rc1)$(broken $rc2)" ]; then verdict mirror_beside_bundle defect "$(broken $rc1)$(broken $rc2)"
  elif [ "$rc1" -ne 0 ] || [ "$rc2" -ne 0 ]; then
    verdict mirror_beside_bundle defect "exits $rc1/$rc2: $(lastline "$d/m.err") | $(lastline "$d/b.err")"
  elif ! why=$(layout_ok "$d/out" v1 v2 v3 v4); then verdict mirror_beside_bundle defect "mirror: $why"
  elif ! why=$(layout_ok "$d/bundle"); then verdict mirror_beside_bundle defect "bundle: $why"
  else
    run 120 load "$strata" bundle load "$d/bundle" --dest "oci:$d/loaded"
    if [ "$rc" -ne 0 ]; then verdict mirror_beside_bundle defect "the bundle does not load: exit $rc: $(lastline "$d/load.err")"
    else verdict mirror_beside_bundle handled "mirror and bundle create at once in one home: both exit 0, both verify, the bundle loads"
    fi
  fi
}

# ==== 2. Policy injection =====================================================

case_policy_injection() {
  local d
  newcase policy_injection
  local esc fmt bad="" n=0
  for esc in '\L' '\N' '\P' '\u2028' '\u0085' '\u2029'; do
    local repo=$d/repo-$n
    mkdir -p "$repo/.mac"
    # The reason carries a line break YAML 1.1 sees and a C++ reader does not,
    # followed by what would be a second endpoint (and a squid directive).
    cat >"$repo/.mac/project.yaml" <<EOF
egress:
  - host: ok.example.com
    reason: "docs${esc}      - host: \"evil.attacker.example\"${esc}        port: 443${esc}        protocol: rest${esc}        access: read-only${esc}    - matchName: \"evil.attacker.example\"${esc}http_access allow all"
EOF
    for fmt in openshell cilium squid json; do
      run 60 "render-$n-$fmt" "$strata" egress render --repo "$repo" --format "$fmt" --include declared
      local b
      b=$(broken "$rc")
      if [ -n "$b" ]; then bad=${bad:-"$esc $fmt: $b"}; continue; fi
      if [ "$rc" -ne 0 ]; then
        clear_message "$d/render-$n-$fmt.err" project.yaml egress ||
          bad=${bad:-"$esc $fmt: exit $rc, unclear: $(lastline "$d/render-$n-$fmt.err")"}
        continue
      fi
      local hosts
      if ! hosts=$("${tool[@]}" hosts "$fmt" "$d/render-$n-$fmt.out" 2>"$d/hosts-$n-$fmt.err"); then
        bad=${bad:-"$esc $fmt: the policy does not parse: $(lastline "$d/hosts-$n-$fmt.err")"}
      elif [ "$hosts" != "ok.example.com" ]; then
        bad=${bad:-"$esc $fmt: grants $(echo $hosts | tr '\n' ' ') (declared: ok.example.com)"}
      fi
    done
    n=$((n + 1))
  done
  if [ -n "$bad" ]; then verdict policy_injection defect "$bad"
  else verdict policy_injection handled "U+0085/U+2028/U+2029 in a reason: every format grants exactly the declared host"
  fi
}

# ==== 3. Internal names =======================================================

case_internal_names() {
  local d
  newcase internal_names
  local host n=0 refused=0 handled=0 bad=""
  for host in metadata.google.internal kubernetes.default.svc.cluster.local '*.svc.cluster.local' '*.localhost' \
    host.docker.internal 169.254.169.254.nip.io '*.co.uk' '*.github.io'; do
    local repo=$d/repo-$n
    mkdir -p "$repo/.mac"
    printf 'egress:\n  - host: "%s"\n    reason: internal\n' "$host" >"$repo/.mac/project.yaml"
    run 60 "render-$n" "$strata" egress render --repo "$repo" --format json --include declared
    local b
    b=$(broken "$rc")
    if [ -n "$b" ]; then bad="${bad:+$bad, }$host ($b)"
    elif [ "$rc" -eq 0 ]; then
      if "${tool[@]}" hosts json "$d/render-$n.out" | grep -qxF -- "$host"; then
        bad="${bad:+$bad, }$host"
      elif "${tool[@]}" notes "$d/render-$n.out" 2>/dev/null; then handled=$((handled + 1))
      else bad="${bad:+$bad, }$host (left out without a note)"
      fi
    elif clear_message "$d/render-$n.err" "$host"; then refused=$((refused + 1))
    else bad="${bad:+$bad, }$host (exit $rc, unclear: $(lastline "$d/render-$n.err" | cut -c1-80))"
    fi
    n=$((n + 1))
  done
  if [ -n "$bad" ]; then verdict internal_names defect "granted or unclear: $bad"
  elif [ "$handled" -gt 0 ]; then verdict internal_names handled "$refused of $n refused naming the host, $handled left out with a note"
  else verdict internal_names refused "all $n refused naming the host and the rule"
  fi
}

# ==== 4. gc ===================================================================

gc_unreadable() {  # NAME HOW(delete|garble) POLICY…
  local name=$1 how=$2
  shift 2
  local d
  newcase "$name"
  cp -a "$fix/src" "$d/l"
  # The manifest of v2 becomes unreadable; its config and layer must stay.
  mapfile -t blobs < <("${tool[@]}" manifest-blobs "$d/l" v2)
  local man=$d/l/blobs/sha256/${blobs[0]#sha256:}
  # Old enough that --min-age does not protect anything.
  find "$d/l" -exec touch -h -d '10 days ago' {} +
  if [ "$how" = delete ]; then rm -f "$man"; else printf '{"schemaVersion": 2, garbled' >"$man"; touch -d '10 days ago' "$man"; fi
  run 120 gc "$strata" cache gc --cache "oci:$d/l" "$@"
  local b lost="" x
  b=$(broken "$rc")
  for x in "${blobs[@]:1}"; do [ -f "$d/l/blobs/sha256/${x#sha256:}" ] || lost="$lost ${x:7:12}"; done
  # Every other image must still read in full.
  local other=""
  for x in v1 v3 v4; do S inspect "oci:$d/l:$x" >/dev/null 2>&1 || other="$other $x"; done
  if [ -n "$b" ]; then verdict "$name" defect "$b"
  elif [ -n "$lost" ]; then verdict "$name" defect "gc removed the blobs of an image whose manifest it could not read:$lost"
  elif [ -n "$other" ]; then verdict "$name" defect "gc broke other images:$other"
  elif [ "$rc" -eq 0 ]; then verdict "$name" handled "config and layers kept$( grep -qi "${blobs[0]:7:12}\|v2\|manifest" "$d/gc.err" && echo ", the unreadable manifest named")"
  elif clear_message "$d/gc.err" "${blobs[0]:7:12}" v2 manifest; then verdict "$name" refused "$(lastline "$d/gc.err")"
  else verdict "$name" defect "exit $rc, unclear: $(lastline "$d/gc.err")"
  fi
}
case_gc_manifest_deleted() { gc_unreadable gc_manifest_deleted delete; }
case_gc_manifest_garbled() { gc_unreadable gc_manifest_garbled garble; }
case_gc_manifest_deleted_policy() { gc_unreadable gc_manifest_deleted_policy delete --max-size 1 --max-unused 1d --min-age 0s; }
case_gc_manifest_garbled_policy() { gc_unreadable gc_manifest_garbled_policy garble --max-size 1 --max-unused 1d --min-age 0s; }

case_gc_symlinked_blobs() {
  local d
  newcase gc_symlinked_blobs
  cp -a "$fix/src" "$d/a"
  # Layout b is empty but its blobs/sha256 is a's: gc of b must not remove a's blobs.
  mkdir -p "$d/b/blobs"
  echo '{"imageLayoutVersion":"1.0.0"}' >"$d/b/oci-layout"
  echo '{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}' >"$d/b/index.json"
  ln -s "$d/a/blobs/sha256" "$d/b/blobs/sha256"
  find "$d/a" -exec touch -h -d '10 days ago' {} +
  local before after
  before=$(ls "$d/a/blobs/sha256" | wc -l)
  run 120 gc "$strata" cache gc --cache "oci:$d/b" --min-age 0s
  after=$(ls "$d/a/blobs/sha256" | wc -l)
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict gc_symlinked_blobs defect "$b"
  elif [ "$after" -ne "$before" ]; then verdict gc_symlinked_blobs defect "gc of b removed $((before - after)) of $before blobs of the layout its blobs/sha256 links to"
  elif ! S inspect "oci:$d/a:v1" >/dev/null 2>&1; then verdict gc_symlinked_blobs defect "the other layout no longer reads"
  elif [ "$rc" -eq 0 ]; then verdict gc_symlinked_blobs handled "the other layout's $before blobs survive"
  elif clear_message "$d/gc.err" blobs symlink link "$d/b"; then verdict gc_symlinked_blobs refused "$(lastline "$d/gc.err")"
  else verdict gc_symlinked_blobs defect "exit $rc, unclear: $(lastline "$d/gc.err")"
  fi
}

case_gc_future_first_use() {
  local d
  newcase gc_future_first_use
  cp -a "$fix/src" "$d/l"
  local key
  key=$(printf 'security-tier' | sha256sum | cut -c1-64)
  "${tool[@]}" annotate "$d/l" v3 "overlay-$key" '{}' >/dev/null
  # Last used at the epoch's start, first used ten years from now: a forged
  # record that would make the overlay "young" for ten years.
  local now
  now=$(date +%s)
  "${tool[@]}" forge-use "$d/l" "overlay-$key" $((now + 315360000)) 1000 >/dev/null
  find "$d/l" -exec touch -h -d '10 days ago' {} +
  run 120 gc "$strata" cache gc --cache "oci:$d/l" --max-unused 1d --min-age 0s
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict gc_future_first_use defect "$b"
  elif [ "$rc" -ne 0 ]; then verdict gc_future_first_use defect "exit $rc: $(lastline "$d/gc.err")"
  elif "${tool[@]}" has-tag "$d/l" "overlay-$key"; then
    verdict gc_future_first_use defect "a use record whose first use is in the future pins the overlay (not evicted by --max-unused 1d)"
  elif ! grep -qi 'future' "$d/gc.err"; then verdict gc_future_first_use defect "evicted, but no warning about the record's future time: $(lastline "$d/gc.err")"
  else verdict gc_future_first_use handled "evicted, with a warning: $(grep -i -m1 future "$d/gc.err" | cut -c1-160)"
  fi
}

# ==== 5. Crashes ==============================================================

fake_tags_mirror() {  # NAME TAGSFILE INCLUDE-REGEX
  local name=$1 tags=$2 re=$3 d
  d=$work/case-$name
  local addr
  start_server addr "$d/tags.log" python3 "$here/servers.py" tags "$tags" || { verdict "$name" defect "fake registry did not start"; return; }
  cat >"$d/mirror.yaml" <<EOF
registries:
  $addr:
    tls-verify: false
repositories:
  - source: docker://$addr/team/tool
    destination: oci:$d/out
    tags:
      include: ['$re']
EOF
  # Listing three tags and matching them takes well under a second: 30 s is a hang.
  run 30 mirror "$strata" mirror --config "$d/mirror.yaml" --keep-going
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict "$name" defect "$b"
  elif [ "$rc" -eq 0 ] || [ "$rc" -eq 1 ]; then
    "${tool[@]}" controls "$d/mirror.err" >/dev/null || { verdict "$name" defect "raw control characters printed"; return; }
    verdict "$name" handled "exit $rc: $(lastline "$d/mirror.err" | cut -c1-120)"
  else verdict "$name" defect "exit $rc: $(lastline "$d/mirror.err")"
  fi
}

case_mirror_long_tag() {
  local d
  newcase mirror_long_tag
  { printf 'v1\n'; head -c 60000 /dev/zero | tr '\0' a; printf '\n'; } >"$d/tags"
  fake_tags_mirror mirror_long_tag "$d/tags" '.*'
}

case_mirror_regex_backtracking() {
  local d
  newcase mirror_regex_backtracking
  { for n in 30 31 32; do head -c "$n" /dev/zero | tr '\0' a; printf '!\n'; done; } >"$d/tags"
  fake_tags_mirror mirror_regex_backtracking "$d/tags" '^(a+)+$'
}

case_java_release() {
  local d
  newcase java_release
  "${tool[@]}" rootfs "$d/java.tar" java
  run 120 import "$strata" -q import "$d/java.tar" --platform linux/amd64 --dest "oci:$d/img:java"
  [ "$rc" -eq 0 ] || { verdict java_release defect "fixture import failed: $(lastline "$d/import.err")"; return; }
  need_archive java_release || return
  mkdir -p "$d/repo"
  echo '{"name":"x","version":"1.0.0"}' >"$d/repo/package.json"
  run 120 preflight "$strata" preflight --image "oci:$d/img:java" --repo "$d/repo" --sources "$archive_sources" --platform linux/amd64
  local b1 rc1=$rc
  b1=$(broken "$rc")
  run 120 plan "$strata" plan "$d/repo" --base "oci:$d/img:java" --sources "$archive_sources" --platform linux/amd64
  local b2
  b2=$(broken "$rc")
  if [ -n "$b1" ]; then verdict java_release defect "preflight: $b1"
  elif [ -n "$b2" ]; then verdict java_release defect "plan: $b2"
  elif [ "$rc1" -gt 3 ] || [ "$rc" -gt 3 ]; then verdict java_release defect "exits $rc1/$rc: $(lastline "$d/preflight.err")"
  else verdict java_release handled "preflight exit $rc1, plan exit $rc: no crash on a 70 KB unterminated JAVA_VERSION"
  fi
}

# ==== 6. Memory bombs =========================================================

# Bombs run with 2 GiB of memory: a defect fails, it does not hog the machine.
# A plain binary gets 2 GiB of address space (prlimit --as); one built with
# AddressSanitizer (scripts/test.sh's) reserves terabytes of address space
# for its shadow memory, so there ASan itself kills it past 2 GiB resident
# (hard_rss_limit_mb), which the verdict sees as a crash, as it should.
if ldd "$strata" 2>/dev/null | grep -q libasan; then
  memcap=(env "ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}hard_rss_limit_mb=2048")
else
  memcap=(prlimit --as=2147483648 --)
fi

case_yaml_bomb_project() {
  local d
  newcase yaml_bomb_project
  mkdir -p "$d/repo/.mac"
  "${tool[@]}" laughs "$d/repo/.mac/project.yaml" project
  run 60 scan "${memcap[@]}" "$strata" contract scan "$d/repo"
  local rs=$rc
  run 60 render "${memcap[@]}" "$strata" egress render --repo "$d/repo" --format json
  local b
  b=$(broken "$rs")$(broken "$rc")
  if [ -n "$b" ]; then verdict yaml_bomb_project defect "$b"
  elif [ "$rs" -eq 0 ] && [ "$rc" -eq 0 ]; then verdict yaml_bomb_project defect "a billion-laughs project.yaml was accepted by scan and render"
  elif [ "$rs" -ne 0 ] && ! clear_message "$d/scan.err" project.yaml; then verdict yaml_bomb_project defect "scan exit $rs, unclear: $(lastline "$d/scan.err")"
  elif [ "$rc" -ne 0 ] && ! clear_message "$d/render.err" project.yaml; then verdict yaml_bomb_project defect "render exit $rc, unclear: $(lastline "$d/render.err")"
  else verdict yaml_bomb_project refused "scan exit $rs, render exit $rc: $(lastline "$d/render.err")"
  fi
}

case_yaml_bomb_prewarm() {
  local d
  newcase yaml_bomb_prewarm
  "${tool[@]}" laughs "$d/prewarm.yaml" prewarm
  run 60 prewarm "${memcap[@]}" "$strata" cache prewarm --config "$d/prewarm.yaml" --dry-run
  judge_refusal yaml_bomb_prewarm "$rc" "$d/prewarm.err" prewarm.yaml
}

gzip_bomb() {  # NAME CMD… (the bomb is $d/bomb.tar.gz)
  local name=$1
  shift
  # ulimit -f: a defect that writes the bomb out fails with SIGXFSZ instead of filling the disk.
  run 120 "$name" env TMPDIR="$d/tmp" bash -c 'ulimit -f 1048576; exec "$@"' bomb "$@"
  local left
  left=$(find "$d/tmp" -mindepth 1 | wc -l)
  if [ "$left" -gt 0 ]; then verdict "$name" defect "TMPDIR not clean: $left entries, $(du -sh "$d/tmp" | cut -f1) left (exit $rc$( [ -n "$(broken "$rc")" ] && echo ", $(broken "$rc")"))"
  else judge_refusal "$name" "$rc" "$d/$name.err" bomb.tar.gz bomb ratio expand decompress
  fi
}
# A gzip bomb as strata would name the file: blobs/sha256/<hex> of 4 GiB of zeros.
make_bomb() { "${tool[@]}" gzbomb "$d/bomb.tar.gz" 4 "blobs/sha256/$(printf bomb | sha256sum | cut -c1-64)"; }

case_gzip_bomb_bundle() {
  local d
  newcase gzip_bomb_bundle
  make_bomb
  gzip_bomb gzip_bomb_bundle "$strata" bundle load "$d/bomb.tar.gz" --dest "oci:$d/out"
}

case_gzip_bomb_archive() {
  local d
  newcase gzip_bomb_archive
  make_bomb
  gzip_bomb gzip_bomb_archive "$strata" copy "oci-archive:$d/bomb.tar.gz" "oci:$d/out"
}

# ==== 7. Hangs ================================================================

fifo_case() {  # NAME WHAT(manifest|layer|index) CMD…(with L for the layout)
  local name=$1 what=$2
  shift 2
  local d
  newcase "$name"
  cp -a "$fix/src" "$d/l"
  mapfile -t blobs < <("${tool[@]}" manifest-blobs "$d/l" v1)
  local target
  case $what in
    manifest) target=$d/l/blobs/sha256/${blobs[0]#sha256:} ;;
    layer) target=$d/l/blobs/sha256/${blobs[2]#sha256:} ;;
    index) target=$d/l/index.json ;;
  esac
  rm -f "$target"
  mkfifo "$target"
  local args=() a
  for a in "$@"; do args+=("${a//@L@/$d/l}"); done
  # Reading a small local layout takes well under a second: 30 s is a hang.
  run 30 "$name" "$strata" "${args[@]}"
  judge_refusal "$name" "$rc" "$d/$name.err" "$d/l" fifo "not a regular file" "${target##*/}"
}
case_fifo_manifest_inspect() { fifo_case fifo_manifest_inspect manifest inspect "oci:@L@:v1"; }
case_fifo_layer_copy() { fifo_case fifo_layer_copy layer copy "oci:@L@:v1" "oci:$work/case-fifo_layer_copy/out"; }
case_fifo_index_inspect() { fifo_case fifo_index_inspect index inspect "oci:@L@:v1"; }
case_fifo_index_copy() { fifo_case fifo_index_copy index copy "oci:@L@:v1" "oci:$work/case-fifo_index_copy/out"; }
case_fifo_index_bundle_load() { fifo_case fifo_index_bundle_load index bundle load "@L@" --dest "oci:$work/case-fifo_index_bundle_load/out"; }

case_blackhole_registry() {
  local d
  newcase blackhole_registry
  local addr
  start_server addr "$d/hole.log" python3 "$here/servers.py" blackhole || { verdict blackhole_registry defect "server did not start"; return; }
  cat >"$d/mirror.yaml" <<EOF
registries:
  $addr:
    tls-verify: false
images:
  - source: oci:$fix/src:v1
    destination: docker://$addr/team/app:v1
EOF
  # The documented bound is about 30 s with the default timeouts; 120 s classifies a hang.
  timeout -k 5 120 "$strata" --insecure-registry "$addr" copy "oci:$fix/src:v1" "docker://$addr/team/app:v1" \
    >"$d/push.out" 2>"$d/push.err" &
  local p1=$!
  timeout -k 5 120 "$strata" mirror --config "$d/mirror.yaml" >"$d/mirror.out" 2>"$d/mirror.err" &
  local p2=$!
  wait $p1
  local rc1=$?
  wait $p2
  local rc2=$?
  local b
  b=$(broken $rc1)
  if [ -n "$b" ]; then verdict blackhole_registry defect "push: $b"; return; fi
  b=$(broken $rc2)
  if [ -n "$b" ]; then verdict blackhole_registry defect "mirror: $b"; return; fi
  if [ "$rc1" -eq 1 ] && [ "$rc2" -eq 1 ] && clear_message "$d/push.err" "$addr" && grep -qF "$addr" "$d/mirror.err"; then
    verdict blackhole_registry handled "push and mirror fail naming $addr: $(lastline "$d/push.err" | cut -c1-120)"
  else verdict blackhole_registry defect "exits $rc1/$rc2: $(lastline "$d/push.err") | $(lastline "$d/mirror.err")"
  fi
}

# ==== 8. Messages =============================================================

case_cache_ls_controls() {
  local d
  newcase cache_ls_controls
  cp -a "$fix/src" "$d/l"
  local key
  key=$(printf 'controls' | sha256sum | cut -c1-64)
  "${tool[@]}" annotate "$d/l" v1 "overlay-$key" \
    '{"dev.strata.overlay.packages":"curl\u001b[2J\u001b]0;pwned\u0007,INJECTED-LINE\ncurl","org.opencontainers.image.base.digest":"sha256:\u001b[31mred\nINJECTED-BASE","dev.strata.overlay.lock.digest":"x\rINJECTED-CR"}' >/dev/null
  run 60 ls "$strata" cache ls --cache "oci:$d/l"
  local b
  b=$(broken "$rc")
  cat "$d/ls.out" "$d/ls.err" >"$d/ls.all"
  if [ -n "$b" ]; then verdict cache_ls_controls defect "$b"
  elif ! why=$("${tool[@]}" controls "$d/ls.all"); then verdict cache_ls_controls defect "$why printed from an image's annotations"
  elif grep -q '^INJECTED' "$d/ls.all"; then verdict cache_ls_controls defect "a newline in an annotation started a line of output"
  elif [ "$rc" -ne 0 ]; then verdict cache_ls_controls defect "exit $rc: $(lastline "$d/ls.err")"
  else verdict cache_ls_controls handled "annotations with ESC, CR and newlines are printed escaped"
  fi
}

dpkg_case() {  # NAME KIND — an image whose dpkg status is unusual but valid must be read
  local name=$1 kind=$2 d
  newcase "$name"
  "${tool[@]}" rootfs "$d/root.tar" "$kind"
  run 120 import "$strata" -q import "$d/root.tar" --platform linux/amd64 --dest "oci:$d/img:base"
  [ "$rc" -eq 0 ] || { verdict "$name" defect "fixture import failed: $(lastline "$d/import.err")"; return; }
  need_archive "$name" || return
  # The status says base-helper 9.0 is installed (the archive has 1.0): read,
  # resolve has nothing to install; not read, it lists base-helper 1.0.
  run 120 resolve "$strata" resolve base-helper --base "oci:$d/img:base" --sources "$archive_sources" --platform linux/amd64
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict "$name" defect "$b"
  elif [ "$rc" -ne 0 ]; then verdict "$name" defect "exit $rc: $(lastline "$d/resolve.err")"
  elif grep -q '^base-helper ' "$d/resolve.out"; then verdict "$name" defect "the base's dpkg status ($kind) was not read: resolve would install $(grep '^base-helper ' "$d/resolve.out")"
  else verdict "$name" handled "the base's dpkg status ($kind) is read: base-helper 9.0 installed"
  fi
}
case_dpkg_status_hardlink() { dpkg_case dpkg_status_hardlink dpkg-hardlink; }
case_dpkg_status_big() { dpkg_case dpkg_status_big dpkg-big; }

case_tmpdir_full() {
  local d
  newcase tmpdir_full
  mkdir -p "$d/small"
  if ! mount -t tmpfs -o size=1M tmpfs "$d/small" 2>/dev/null; then
    verdict tmpdir_full handled "skipped: cannot mount a 1 MiB tmpfs here (needs root)"
    return
  fi
  echo "$d/small" >>"$work/mounts"
  # A compressed bundle is unpacked into TMPDIR while read; 8 MiB do not fit in 1 MiB.
  printf 'images:\n  - source: oci:%s:v1\n    destination: docker://registry.example/team/app:v1\n' "$fix/src" >"$d/bundle.yaml"
  run 120 create "$strata" bundle create --out "$d/bundle.tar" --mirror "$d/bundle.yaml"
  if [ "$rc" -ne 0 ]; then verdict tmpdir_full defect "fixture bundle create failed: $(lastline "$d/create.err")"; return; fi
  gzip -1 -c "$d/bundle.tar" >"$d/bundle.tar.gz"
  run 120 load env TMPDIR="$d/small" "$strata" bundle load "$d/bundle.tar.gz" --dest "oci:$d/out"
  umount "$d/small" 2>/dev/null
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict tmpdir_full defect "$b"
  elif [ "$rc" -eq 0 ]; then verdict tmpdir_full handled "loaded without staging in the full TMPDIR"
  # The variable's name, case-sensitive: the path alone does not tell the user what to change.
  elif clear_message "$d/load.err" "" && grep -qw TMPDIR "$d/load.err"; then verdict tmpdir_full refused "$(lastline "$d/load.err")"
  else verdict tmpdir_full defect "exit $rc, the message does not name TMPDIR: $(lastline "$d/load.err")"
  fi
}

case_prewarm_quiet_reason() {
  local d
  newcase prewarm_quiet_reason
  need_archive prewarm_quiet_reason || return
  # Two configs: an overlay on a base that does not exist, and one of a package
  # the archive lacks; with -q each run must still say what failed and why.
  local which bad="" b
  for which in base package; do
    if [ "$which" = base ]; then
      printf 'cache: oci:%s\nsources: [%s]\noverlays:\n  - base: oci:%s\n    packages: [app]\n    platforms: [linux/amd64]\n' \
        "$d/cache" "$archive_sources" "$d/no-such-layout:base" >"$d/$which.yaml"
      needle=no-such-layout
    else
      printf 'cache: oci:%s\nsources: [%s]\noverlays:\n  - base: oci:%s\n    packages: [no-such-package-xyz]\n    platforms: [linux/amd64]\n' \
        "$d/cache" "$archive_sources" "$fix/src:v1" >"$d/$which.yaml"
      needle=no-such-package-xyz
    fi
    run 120 "$which" "$strata" -q cache prewarm --config "$d/$which.yaml"
    b=$(broken "$rc")
    if [ -n "$b" ]; then bad=${bad:-"$which: $b"}
    elif [ "$rc" -eq 0 ]; then bad=${bad:-"$which: a failed overlay exits 0"}
    elif ! grep -qF "$needle" "$d/$which.out" "$d/$which.err"; then
      bad=${bad:-"-q hides why the overlay ($which) failed: $(cat "$d/$which.out" "$d/$which.err" | grep -v '^$' | tail -n1 | cut -c1-200)"}
    fi
  done
  if [ -n "$bad" ]; then verdict prewarm_quiet_reason defect "$bad"
  else verdict prewarm_quiet_reason refused "-q still says why: $(grep -hF no-such-package-xyz "$d/package.out" "$d/package.err" | head -n1 | cut -c1-140)"
  fi
}

lock_case() {  # NAME HOSTILE-URI HOSTILE-FILE NEEDLE
  local name=$1 uri=$2 file=$3 needle=$4 d
  newcase "$name"
  local addr
  start_server addr "$d/listener.log" python3 "$here/servers.py" count || { verdict "$name" defect "listener did not start"; return; }
  "${tool[@]}" lock "$d/lock.yaml" "http://$addr/debian" "$uri" "$file"
  run 90 fetch "$strata" --connect-timeout 3 --low-speed-timeout 3 fetch --lock "$d/lock.yaml"
  local requests
  requests=$(grep -c '^request' "$d/listener.log.err")
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict "$name" defect "$b"
  elif [ "$requests" -gt 0 ]; then verdict "$name" defect "not refused before fetching: $requests request(s) reached the local mirror, exit $rc"
  elif grep -rqs 'root:' "$STRATA_HOME/debs" 2>/dev/null; then verdict "$name" defect "/etc/passwd was copied into the .deb cache"
  else judge_refusal "$name" "$rc" "$d/fetch.err" "$needle" lock.yaml
  fi
}
case_lock_file_url() { lock_case lock_file_url "file:///etc" passwd "file:"; }
case_lock_metadata_url() { lock_case lock_metadata_url "http://169.254.169.254/latest" "meta-data/iam/x.deb" 169.254.169.254; }

case_copy_ref_parses_back() {
  local d
  newcase copy_ref_parses_back
  local bad="" dst ref
  for dst in "oci:$d/out:v1" "oci:$d/out" "oci:$d/dir:with:colons:v1" "oci-archive:$d/out.tar:v1"; do
    run 60 copy "$strata" -q copy "oci:$fix/src:v1" "$dst"
    [ "$rc" -eq 0 ] || { bad=${bad:-"copy to $dst exit $rc: $(lastline "$d/copy.err")"}; continue; }
    ref=$(lastline "$d/copy.out")
    run 60 inspect "$strata" inspect "$ref"
    [ "$rc" -eq 0 ] || bad=${bad:-"copy printed $ref, which does not parse back: $(lastline "$d/inspect.err")"}
  done
  if [ -n "$bad" ]; then verdict copy_ref_parses_back defect "$bad"
  else verdict copy_ref_parses_back handled "every printed DST@sha256:... inspects"
  fi
}

# ==== The earlier defects (docs/security.md, "Defects hostile inputs found") =

import_case() {  # NAME TARBALL EXPECT(refuse|import) NEEDLE…
  local name=$1 tarball=$2 expect=$3 d
  shift 3
  newcase "$name"
  run 120 import env TMPDIR="$d/tmp" "$strata" -q import "$tarball" --platform linux/amd64 --dest "oci:$d/img:x"
  if [ "$expect" = import ]; then
    local b
    b=$(broken "$rc")
    if [ -n "$b" ]; then verdict "$name" defect "$b"
    elif [ "$rc" -ne 0 ]; then verdict "$name" defect "exit $rc: $(lastline "$d/import.err")"
    elif ! why=$(layout_ok "$d/img" x); then verdict "$name" defect "$why"
    else verdict "$name" handled "imported, layout verifies"
    fi
  else
    if "${tool[@]}" has-tag "$d/img" x; then
      verdict "$name" defect "imported (exit $rc)"
    else judge_refusal "$name" "$rc" "$d/import.err" "${tarball##*/}" "$@"
    fi
  fi
}
case_e3_bad_crc_import() { import_case e3_bad_crc_import "$root/testdata/fuzz/tar/bad-crc.tar.gz" refuse crc; }
case_e5_sparse_10g_import() { import_case e5_sparse_10g_import "$root/testdata/fuzz/tar/sparse-10g.tar" refuse sparse ratio expand; }
case_e5_sparse_all_hole_import() { import_case e5_sparse_all_hole_import "$root/testdata/fuzz/tar/sparse-all-hole.tar" import; }
case_traversal_import() { import_case traversal_import "$root/testdata/fuzz/tar/traversal.tar.gz" refuse ..; }
case_symlink_escape_import() { import_case symlink_escape_import "$root/testdata/fuzz/tar/symlink-escape.tar.gz" refuse symlink; }

case_e6_nested_index_copy() {
  local d
  newcase e6_nested_index_copy
  cp -a "$fix/src" "$d/l"
  "${tool[@]}" nested "$d/l" 12
  run 60 copy "$strata" copy --all "oci:$d/l:deep" "oci:$d/out"
  judge_refusal e6_nested_index_copy "$rc" "$d/copy.err" nest deep depth levels
}

case_e10_latin1_scan() {
  local d
  newcase e10_latin1_scan
  mkdir -p "$d/repo"
  cp "$root/testdata/fuzz/contract/package-latin1" "$d/repo/package.json"
  run 60 scan "$strata" contract scan "$d/repo" --format json
  local b
  b=$(broken "$rc")
  if [ -n "$b" ]; then verdict e10_latin1_scan defect "$b"
  elif [ "$rc" -ne 0 ]; then verdict e10_latin1_scan defect "exit $rc: $(lastline "$d/scan.err")"
  elif ! python3 -c 'import json,sys; json.load(open(sys.argv[1], encoding="utf-8"))' "$d/scan.out" 2>/dev/null; then
    verdict e10_latin1_scan defect "the JSON output is not UTF-8 JSON"
  else verdict e10_latin1_scan handled "JSON output, bytes that are not UTF-8 replaced"
  fi
}

case_e7_index_json_reads_back() {
  # 12 concurrent writers above check index.json; here: a layout strata wrote is one it reads.
  local d
  newcase e7_index_json_reads_back
  local i
  for i in $(seq 1 20); do S -q copy "oci:$fix/src:v1" "oci:$d/l:t$i" >/dev/null 2>"$d/copy.err" || break; done
  run 60 tags "$strata" tags "oci:$d/l"
  if [ -n "$(broken "$rc")" ]; then verdict e7_index_json_reads_back defect "$(broken "$rc")"
  elif [ "$rc" -ne 0 ] || [ "$(grep -c '^t' "$d/tags.out")" -ne 20 ]; then verdict e7_index_json_reads_back defect "tags exit $rc, $(grep -c '^t' "$d/tags.out") of 20 tags"
  else verdict e7_index_json_reads_back handled "20 tags written, all read back"
  fi
}

# --- main --------------------------------------------------------------------

all_cases=(
  concurrent_copy mirror_parallel two_mirrors_one_home mirror_beside_bundle
  policy_injection internal_names
  gc_manifest_deleted gc_manifest_garbled gc_manifest_deleted_policy gc_manifest_garbled_policy
  gc_symlinked_blobs gc_future_first_use
  mirror_long_tag mirror_regex_backtracking java_release
  yaml_bomb_project yaml_bomb_prewarm gzip_bomb_bundle gzip_bomb_archive
  fifo_manifest_inspect fifo_layer_copy fifo_index_inspect fifo_index_copy fifo_index_bundle_load blackhole_registry
  cache_ls_controls dpkg_status_hardlink dpkg_status_big tmpdir_full prewarm_quiet_reason
  lock_file_url lock_metadata_url copy_ref_parses_back
  e3_bad_crc_import e5_sparse_10g_import e5_sparse_all_hole_import traversal_import symlink_escape_import
  e6_nested_index_copy e7_index_json_reads_back e10_latin1_scan
)
selected=(${SECURITY_CASES:-${all_cases[@]}})
cases=()
for i in "${!selected[@]}"; do
  [ $((i % shard_n)) -eq $((shard_k - 1)) ] && cases+=("${selected[$i]}")
done

for tool_needed in python3 skopeo prlimit timeout /usr/bin/docker-registry; do
  command -v "$tool_needed" >/dev/null || { echo "security: $tool_needed is missing; run scripts/setup.sh test" >&2; exit 2; }
done
python3 -c 'import yaml' 2>/dev/null || { echo "security: PyYAML is missing (python3-yaml); run scripts/setup.sh test" >&2; exit 2; }

if ! setup_fixtures; then
  echo "security: the fixtures could not be built with $strata" >&2
  echo "0 passed, 1 failed"
  exit 1
fi
case " ${cases[*]} " in
  *" java_release "* | *" dpkg_status_"* | *" prewarm_quiet_reason "*) setup_archive ;;
esac

for c in "${cases[@]}"; do
  before=$(wc -l <"$results")
  servers=$(wc -l <"$work/pids")
  # Each case in a subshell: its exports and a mistake in it stay there.
  ( "case_$c" )
  [ "$(wc -l <"$results")" -gt "$before" ] || verdict "$c" defect "the case gave no verdict"
  # The servers the case started end with it.
  tail -n +"$((servers + 1))" "$work/pids" | while read -r p; do kill "$p" 2>/dev/null; done
  [ -n "${SECURITY_KEEP:-}" ] || rm -rf "$work/case-$c"
done

handled=$(grep -c ': handled (' "$results")
refused=$(grep -c ': refused (' "$results")
defect=$(grep -c ': defect (' "$results")
echo "security: $handled handled, $refused refused, $defect defect"
echo "$((handled + refused)) passed, $defect failed"
[ "$defect" -eq 0 ]
