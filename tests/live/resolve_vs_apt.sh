#!/usr/bin/env bash
# Live tier (opt-in: STRATA_LIVE=1; ctest label `live`): on the host's real
# Debian archive, `strata resolve --status` of a minbase root made with
# mmdebstrap must equal `apt-get install -s --no-install-recommends` for the
# same root and sources (tests/support/apt_simulate.sh: apt-get with
# Dir=<private state>, Dir::State::status=<root>/var/lib/dpkg/status) — the
# same names, versions and architectures, for every request below.
#   resolve_vs_apt.sh [STRATA_BINARY]
# Env: STRATA_LIVE=1 (required), LIVE_SOURCES (default: the host's
# debian.sources), LIVE_SUITE (bookworm), LIVE_KEEP=DIR (keep/reuse the root,
# apt state and strata home there), LIVE_REQUESTS (override, ';'-separated).
# Prints one line per request and a summary; exit 1 on any divergence.
set -euo pipefail
needs=mmdebstrap
source "$(dirname "$0")/lib.sh"
src=$live_src
root=$work/root
minbase_root "$root"
status=$root/var/lib/dpkg/status

default_requests="build-essential;g++;libpq-dev;libssl-dev;libvips-dev;python3;nodejs npm;default-jdk-headless;\
golang;rustc cargo;libsqlite3-dev pkg-config;git;curl ca-certificates;python3-pip python3-venv;\
build-essential libpq-dev;cmake;clang;ruby-full;postgresql-client;imagemagick;libxml2-dev libxslt1-dev;\
perl;openssh-client;php-cli"
IFS=';' read -r -a requests <<< "${LIVE_REQUESTS:-$default_requests}"

pass=0; fail=0; failed=()
for req in "${requests[@]}"; do
  read -r -a pkgs <<< "$req"
  a=$("$src/tests/support/apt_simulate.sh" "$work/apt" "$sources" "$status" amd64 -- "${pkgs[@]}" 2>&1) ||
    { echo "FAIL  $req: apt-get failed: $a"; fail=$((fail + 1)); failed+=("$req"); continue; }
  s=$("$strata" resolve --status "$status" --sources "$sources" --platform linux/amd64 "${pkgs[@]}" 2> "$work/strata.err") ||
    { echo "FAIL  $req: strata failed: $(cat "$work/strata.err")"; fail=$((fail + 1)); failed+=("$req"); continue; }
  s=$(echo "$s" | LC_ALL=C sort)
  if [ "$a" = "$s" ]; then
    echo "OK    $req ($(echo "$a" | grep -c . ) packages)"
    pass=$((pass + 1))
  else
    echo "FAIL  $req: apt-get (<) vs strata (>):"
    diff <(echo "$a") <(echo "$s") | grep '^[<>]' | sed 's/^/        /' || true
    fail=$((fail + 1)); failed+=("$req")
  fi
done
echo "live resolve vs apt-get: $pass of $((pass + fail)) requests identical"
[ "$fail" -eq 0 ] || { printf 'diverged: %s\n' "${failed[@]}"; exit 1; }
