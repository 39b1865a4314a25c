#!/usr/bin/env bash
# Every example a newcomer copies runs as written.
#   examples_test.sh SOURCE_DIR STRATA_BINARY
#
# README.md: every line of a ```sh block that starts with `strata ` is run,
# in order, by bash in one prepared world, exactly as written. It must exit 0,
# or the code its comment names (`# exit 3: …`). The world, in a private
# network and mount namespace (so fixed names and ports are ours alone):
#   ~/src/app                   testdata/repos/c-make-hello (needs cc and make)
#   docker://localhost:5000     a real registry (docker-registry, TLS by a CA
#                               only this namespace trusts) holding debian:12
#                               (tests/support/make_overlay_base.sh, imported)
#   ./bookworm.sources            the signed fixture archive (testdata/toolchain)
#   ./rootfs.tar                that base's root filesystem tarball
#   ./mirror.yaml, ./prewarm.yaml   small configs over the above
#   /srv                        an empty tmpfs
#
# `strata COMMAND --help` "Examples:": each command line there (a line that
# starts with `strata `, `VAR=… strata ` or holds `$(strata …)`; `\` lines
# joined) names hosts, files and releases no test can own (docker.io,
# registry.internal, nodejs.org, site.tar), so each runs as written but
# offline (STRATA_OFFLINE=1) in an empty directory: it must be a command line
# strata accepts — exit 0, 1 (a missing input, with a reason) or 3, never 2
# (usage: an unknown command or option, a bad value) and never a crash.
#
# The `strata --help` command list and README's "What is built" table must
# name the same commands.
#
# A failure names the example (file:line and the command). Exit 77 (skipped)
# only when the namespaces cannot be made (not root).
set -uo pipefail
src=$(cd "${1:?usage: examples_test.sh SOURCE_DIR STRATA_BINARY}" && pwd)
strata=$(readlink -f "${2:?strata binary}")

if [ -z "${STRATA_EXAMPLES_NS:-}" ]; then
  if ! unshare --net --mount --propagation private true 2>/dev/null; then
    echo "examples_test: skipped: cannot make a network and mount namespace (unshare needs root)" >&2
    exit 77
  fi
  STRATA_EXAMPLES_NS=1 exec unshare --net --mount --propagation private "$0" "$@"
fi

work=$(mktemp -d /tmp/strata-examples-XXXXXX)
pids=()
cleanup() {
  local p
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null; done
  GNUPGHOME=$work/archive/main/gnupg gpgconf --kill gpg-agent >/dev/null 2>&1
  if [ -n "${EXAMPLES_KEEP:-}" ]; then echo "examples_test: kept $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT
die() { echo "examples_test: $*" >&2; exit 1; }

# --- the world ---------------------------------------------------------------
ip link set lo up || die "cannot bring up the namespace's loopback"
mount -t tmpfs tmpfs /srv || die "cannot mount a tmpfs on /srv"
mount -t tmpfs tmpfs /opt || die "cannot mount a tmpfs on /opt"

export HOME=$work/home LC_ALL=C SOURCE_DATE_EPOCH=1700000000
unset STRATA_HOME XDG_CACHE_HOME STRATA_OFFLINE DOCKER_CONFIG XDG_RUNTIME_DIR JOB_COMPLETION_INDEX JOB_COMPLETIONS
mkdir -p "$HOME/src" "$work/bin" "$work/cwd" "$work/tls" "$work/registry"
ln -s "$strata" "$work/bin/strata"
export PATH="$work/bin:$PATH"
cp -r "$src/testdata/repos/c-make-hello" "$HOME/src/app"
cwd=$work/cwd

STRATA_ARCHIVE_DEFS=$src/testdata/toolchain "$src/tests/support/make_archive.sh" build "$work/archive/main" \
  >"$work/archive.log" 2>&1 </dev/null &
archive_build=$!
pids+=("$archive_build")

# The registry's CA, trusted in this namespace only (a bind mount over the bundle).
tls=$work/tls
{
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tls/ca.key" -out "$tls/ca.crt" -days 2 -subj /CN=strata-examples-ca
  openssl req -newkey rsa:2048 -nodes -keyout "$tls/reg.key" -out "$tls/reg.csr" -subj /CN=localhost
  printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >"$tls/ext"
  openssl x509 -req -in "$tls/reg.csr" -CA "$tls/ca.crt" -CAkey "$tls/ca.key" -CAcreateserial -out "$tls/reg.crt" \
    -days 2 -extfile "$tls/ext"
} >"$tls/log" 2>&1 || die "openssl: $(tail -n3 "$tls/log")"
cat /etc/ssl/certs/ca-certificates.crt "$tls/ca.crt" >"$tls/bundle.crt"
mount --bind "$tls/bundle.crt" /etc/ssl/certs/ca-certificates.crt || die "cannot trust the test CA"

wait_port() {  # PORT PID LOG
  local i
  for i in $(seq 1 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || break
    sleep 0.1
  done
  die "a server did not start on port $1: $(tail -n3 "$3")"
}

cat >"$work/registry/config.yml" <<EOF
version: 0.1
log: {level: warn}
storage:
  filesystem: {rootdirectory: $work/registry/data}
  delete: {enabled: true}
http:
  addr: 127.0.0.1:5000
  secret: examples-test-not-for-production
  tls: {certificate: $tls/reg.crt, key: $tls/reg.key}
EOF
/usr/bin/docker-registry serve "$work/registry/config.yml" >"$work/registry/log" 2>&1 </dev/null &
pids+=($!)
wait_port 5000 "${pids[-1]}" "$work/registry/log"

# The signed fixture archive with a real C toolchain (testdata/toolchain/README.md),
# made while the rest is set up.
wait "$archive_build" || die "make_archive.sh: $(tail -n3 "$work/archive.log")"
python3 "$src/tests/support/archive_server.py" "$work/archive" >"$work/archive.port" 2>>"$work/archive.log" </dev/null &
pids+=($!)
for _ in $(seq 1 100); do grep -qs '^PORT ' "$work/archive.port" && break; sleep 0.1; done
archive_port=$(sed -n 's/^PORT //p' "$work/archive.port")
[ -n "$archive_port" ] || die "the archive server did not start: $(tail -n3 "$work/archive.log")"
cat >"$cwd/bookworm.sources" <<EOF
Types: deb
URIs: http://127.0.0.1:$archive_port/main
Suites: stable
Components: main
Signed-By: $work/archive/main/keyring.gpg
EOF

# The base: a tiny root filesystem (the host's libc and loader, a dpkg state).
"$src/tests/support/make_overlay_base.sh" "$cwd/rootfs.tar" >"$work/base.log" 2>&1 ||
  die "make_overlay_base.sh: $(tail -n3 "$work/base.log")"
STRATA_HOME=$work/setup-home strata -q import "$cwd/rootfs.tar" --dest docker://localhost:5000/debian:12 \
  >/dev/null 2>"$work/push.err" || die "pushing the base: $(cat "$work/push.err")"

# A lock of the archive, for the --help examples that name one.
(cd "$cwd" && STRATA_HOME=$work/setup-home strata -q resolve build-essential --base docker://localhost:5000/debian:12 \
  --sources bookworm.sources --lock-out "$work/fixture.lock") >/dev/null 2>"$work/lock.err" ||
  die "resolving the fixture lock: $(cat "$work/lock.err")"

cat >"$cwd/mirror.yaml" <<'EOF'
images:
  - source: docker://localhost:5000/debian:12
    destination: oci:/srv/mirror:debian-12
EOF
cat >"$cwd/prewarm.yaml" <<EOF
cache: docker://localhost:5000/overlays
sources: [bookworm.sources]
overlays:
  - {base: docker://localhost:5000/debian:12, packages: [make]}
repos:
  - {path: $HOME/src/app, base: docker://localhost:5000/debian:12}
EOF

failed=0
fail() { echo "examples_test: FAILED $*" >&2; failed=$((failed + 1)); }

# --- README.md ---------------------------------------------------------------
# FILE:LINE<TAB>COMMAND per example, in order.
extract_readme() {
  awk -v f="$1" '
    /^```/ { if (inblock) { inblock = 0 } else if ($0 ~ /^```(sh|bash|shell)[[:space:]]*$/) { inblock = 1 }; next }
    inblock && /^strata / { printf "%s:%d\t%s\n", f, NR, $0 }' "$src/$1"
}
readme_examples=$(extract_readme README.md)
n_readme=$(grep -c . <<<"$readme_examples")
[ "$n_readme" -ge 15 ] || fail "README.md: only $n_readme examples found (a \`\`\`sh block, lines starting with 'strata ')"
i=0
while IFS=$'\t' read -r where cmd; do
  i=$((i + 1))
  want=0
  if [[ $cmd =~ \#.*exit\ ([0-9]+) ]]; then want=${BASH_REMATCH[1]}; fi
  (cd "$cwd" && timeout -k 5 120 bash -c "$cmd") >"$work/ex$i.out" 2>"$work/ex$i.err" </dev/null
  rc=$?
  if [ "$rc" -ne "$want" ]; then
    fail "$where: \`$cmd\` exited $rc (expected $want): $(tail -n3 "$work/ex$i.err")"
  fi
done <<<"$readme_examples"

# --- strata COMMAND --help ---------------------------------------------------
# Every command path: the top level's subcommands, and theirs.
subcommands() { "$strata" "$@" --help 2>/dev/null | awk '/^Subcommands:/ { s = 1; next } s && /^  [a-z]/ { print $1; next } s && !/^  / { s = 0 }'; }
paths=()
for c in $(subcommands); do
  subs=$(subcommands "$c")
  if [ -z "$subs" ]; then paths+=("$c"); else for s in $subs; do paths+=("$c $s"); done; fi
done
[ "${#paths[@]}" -ge 20 ] || fail "strata --help: only ${#paths[@]} commands found: ${paths[*]}"

help_examples=""
for p in "${paths[@]}"; do
  # shellcheck disable=SC2086
  ex=$("$strata" $p --help 2>&1 | awk -v p="$p" '
    /^Examples:/ { e = 1; next }
    e && /^$/ { exit }                       # a blank line ends the examples (notes, a config follow)
    e {
      line = $0; sub(/^ +/, "", line)
      if (cont != "") { line = cont " " line; cont = "" }
      if (line ~ /\\$/) { sub(/ *\\$/, "", line); cont = line; next }
      if (line ~ /\$\(strata /) { sub(/.*\$\(/, "", line); sub(/\)[^)]*$/, "", line) }
      if (line ~ /^([A-Z_]+=[^ ]* )*strata /) printf "strata %s --help\t%s\n", p, line
    }')
  [ -n "$ex" ] && help_examples+="$ex"$'\n'
done
n_help=$(grep -c . <<<"$help_examples")
[ "$n_help" -ge 30 ] || fail "--help: only $n_help examples found"
# The files the examples name exist (strata checks an input file exists
# before anything else: a missing one is a usage error), made from the world.
empty=$work/help-cwd
mkdir -p "$empty"
cp "$cwd/bookworm.sources" "$cwd/mirror.yaml" "$cwd/prewarm.yaml" "$cwd/rootfs.tar" "$empty/"
zstd -q "$cwd/rootfs.tar" -o "$empty/rootfs.tar.zst" || fail "zstd: cannot make rootfs.tar.zst"
for lock in dev overlay amd64 arm64; do cp "$work/fixture.lock" "$empty/$lock.lock"; done
echo "deb [signed-by=$work/archive/main/keyring.gpg] http://127.0.0.1:$archive_port/main stable main" >"$empty/internal.list"
strata contract scan "$HOME/src/app" >"$empty/contract.yaml" 2>/dev/null || fail "cannot scan ~/src/app into contract.yaml"
printf 'toolchains:\n  - {tool: node, version: 22.11.0}\n' >"$empty/toolchains.yaml"
i=0
while IFS=$'\t' read -r where cmd; do
  [ -n "$cmd" ] || continue
  i=$((i + 1))
  rm -rf "$work/help-home"
  (cd "$empty" && STRATA_OFFLINE=1 STRATA_HOME=$work/help-home timeout -k 5 60 bash -c "$cmd") \
    >"$work/help$i.out" 2>"$work/help$i.err" </dev/null
  rc=$?
  case $rc in
    0 | 3) ;;
    1) [ -s "$work/help$i.err" ] || fail "$where: \`$cmd\` exited 1 with no reason on stderr" ;;
    *) fail "$where: \`$cmd\` exited $rc (a usage error or a crash): $(tail -n3 "$work/help$i.err")" ;;
  esac
done <<<"$help_examples"

# --- README's list of commands ---------------------------------------------
built=$(awk '/^## What is built/ { s = 1; next } s && /^## / { s = 0 } s' "$src/README.md")
[ -n "$built" ] || fail "README.md has no '## What is built' section"
for p in "${paths[@]}"; do
  grep -qF "\`strata $p" <<<"$built" || fail "README.md: '## What is built' does not name \`strata $p\`"
done
for named in $(grep -o '`strata [a-z]*\( [a-z]\+\)\?' <<<"$built" | sed 's/^`strata //; s/ /_/'); do
  found=0
  for p in "${paths[@]}"; do
    [ "${p// /_}" = "$named" ] || [ "${p%% *}" = "$named" ] && found=1
  done
  [ "$found" -eq 1 ] || fail "README.md: '## What is built' names \`strata ${named//_/ }\`, which strata --help does not list"
done

# --- README's dependency table is scripts/setup.sh's lists ---------------------
deps=$(awk '/^## Dependencies/ { s = 1; next } s && /^## / { s = 0 } s && /^\| / && !/^\| package/ && !/^\|---/' "$src/README.md" |
  awk -F'|' '{ c = $2; sub(/.*adds:/, "", c); gsub(/\([^)]*\)|`/, "", c); gsub(/,/, " ", c); print c }' | tr -s ' ' '\n' | grep . | sort -u)
setup=$(sed 's/#.*//' "$src/scripts/setup.sh" | awk '/^[A-Z_]+_DEPS=\(/ { s = 1; sub(/^[A-Z_]+_DEPS=\(/, "") } s { e = sub(/\).*/, ""); print; if (e) s = 0 }' |
  tr -s ' \t' '\n' | grep . | sort -u)
[ -n "$setup" ] || fail "scripts/setup.sh: no *_DEPS lists found"
for p in $(comm -23 <(echo "$setup") <(echo "$deps")); do fail "README.md: the dependency table lacks $p (scripts/setup.sh installs it)"; done
for p in $(comm -13 <(echo "$setup") <(echo "$deps")); do fail "README.md: the dependency table names $p, which scripts/setup.sh does not install"; done

if [ "$failed" -ne 0 ]; then
  echo "examples_test: $failed failed ($n_readme README examples, $n_help --help examples)" >&2
  exit 1
fi
echo "examples_test: $n_readme README examples and $n_help --help examples of ${#paths[@]} commands run as written (${SECONDS}s)"
