#!/usr/bin/env bash
# What the real apt-get would install: runs `apt-get install -s
# --no-install-recommends PKG…` in a private apt state directory against the
# given sources and dpkg status file, and prints "NAME VERSION ARCH" lines,
# sorted (the format of `strata resolve`). The oracle for the resolver's
# fixture cases and the live tier.
#   apt_simulate.sh STATE_DIR SOURCES_FILE STATUS_FILE ARCHS -- PKG…
# ARCHS: comma-separated, native first (e.g. amd64 or amd64,i386).
# STATE_DIR is created and reused (apt-get update runs when it is new or
# when APT_SIMULATE_UPDATE=1). apt's own messages go to STATE_DIR/apt.log.
set -euo pipefail
state=${1:?state dir}; sources=${2:?sources file}; status=${3:?status file}; archs=${4:?archs}
shift 4; [ "${1:-}" = -- ] && shift
native=${archs%%,*}
mkdir -p "$state"/{etc/apt/apt.conf.d,etc/apt/preferences.d,etc/apt/sources.list.d,etc/apt/trusted.gpg.d} \
  "$state"/var/lib/apt/lists/partial "$state"/var/cache/apt/archives/partial "$state"/var/lib/dpkg
case "$sources" in
  *.sources) cp "$sources" "$state/etc/apt/sources.list.d/main.sources"; : > "$state/etc/apt/sources.list" ;;
  *) cp "$sources" "$state/etc/apt/sources.list" ;;
esac
opts=(-o "Dir=$state" -o "Dir::State::status=$status" -o "Dir::Etc::Parts=$state/etc/apt/apt.conf.d"
  -o "Dir::Bin::dpkg=/bin/false" -o "APT::Architecture=$native" -o "APT::Architectures=$archs"
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o Acquire::Languages=none
  -o "Dir::Log=$state/var/log/apt" -q)
if [ ! -e "$state/.updated" ] || [ "${APT_SIMULATE_UPDATE:-}" = 1 ]; then
  apt-get "${opts[@]}" update > "$state/apt.log" 2>&1 || { cat "$state/apt.log" >&2; exit 1; }
  touch "$state/.updated"
fi
out=$(apt-get "${opts[@]}" install -s --no-install-recommends "$@" 2>> "$state/apt.log") || {
  echo "$out" >&2; tail -20 "$state/apt.log" >&2; exit 1; }
# "Inst NAME[:ARCH] [OLD] (VERSION RELEASE… [ARCH]) [ordering notes…]"
echo "$out" | perl -ne 'print "$1 $2 $3\n" if /^Inst ([^\s:]+)(?::\S+)? (?:\[[^\]]*\] )?\((\S+) [^\[]*\[([^\]]+)\]\)/' |
  LC_ALL=C sort
