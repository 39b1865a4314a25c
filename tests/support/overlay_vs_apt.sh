#!/usr/bin/env bash
# The overlay against the real thing: `strata build` of PKG… on a base root
# filesystem tarball (imported, then the result unpacked with umoci), and
# `apt-get install --no-install-recommends PKG…` run by the base's own apt in
# a chroot of the same tarball against the same sources; then the two trees
# compared path by path (tests/support/tree_diff.py: type, mode, owner,
# symlink target, content) and /etc/ld.so.cache compared as `ldconfig -p`
# lists it. Prints the differences; exits 1 when there are any.
#   overlay_vs_apt.sh STRATA BASE_TAR SOURCES WORK -- PKG…
# SOURCES: an apt .list or .sources file; a signed-by key it names is copied
# into the chroot for apt and removed after. Needs root (chroot, mknod).
#
# What the comparison leaves out, by name, and why (docs/format/overlay.md
# "Compared with apt-get install"): what apt downloads and logs while it
# runs (its lists, caches, logs, dpkg's log and locks, ldconfig's
# aux-cache), debconf's database (strata runs no debconf frontend), and the
# bytes of ld.so.cache (compared entry by entry instead: its trailer names
# the program that wrote it).
# Both sides run with one SOURCE_DATE_EPOCH (default 1700000000), as a
# reproducible image build does: shadow's useradd reads it for the
# last-change day of a new account.
set -euo pipefail
strata=${1:?strata binary}; base=${2:?base tarball}; sources=${3:?sources file}; work=${4:?work dir}
shift 4; [ "${1:-}" = -- ] && shift
support=$(cd "$(dirname "$0")" && pwd)
export STRATA_HOME=${STRATA_HOME:-$work/home}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-1700000000}
mkdir -p "$work"
layout=$work/images

# strata
"$strata" -q import "$base" --dest "oci:$layout:base" --platform linux/amd64 > /dev/null
"$strata" -q build --base "oci:$layout:base" "$@" --sources "$sources" --platform linux/amd64 \
  --dest "oci:$layout:overlay" > "$work/overlay.ref" 2> "$work/strata.err" || { cat "$work/strata.err" >&2; exit 2; }
rm -rf "$work/strata-bundle"
umoci unpack --image "$layout:overlay" "$work/strata-bundle" > /dev/null
a=$work/strata-bundle/rootfs

# apt-get in a chroot of the same base
b=$work/apt-root
rm -rf "$b"; mkdir -p "$b"
tar -C "$b" --numeric-owner -xpf "$base"
key=$(sed -n 's/.*signed-by=\([^] ]*\).*/\1/p; s/^Signed-By: *\(\/.*\)/\1/p' "$sources" | head -1)
case "$sources" in *.sources) list=etc/apt/sources.list.d/strata-vs-apt.sources ;; *) list=etc/apt/sources.list.d/strata-vs-apt.list ;; esac
added=("$list")
if [ -n "$key" ] && [ -f "$b$key" ] && cmp -s "$key" "$b$key"; then
  cp "$sources" "$b/$list"  # the base has the key where the sources say (and may list them itself)
elif [ -n "$key" ]; then
  cp "$key" "$b/etc/apt/strata-vs-apt.gpg"; added+=(etc/apt/strata-vs-apt.gpg)
  sed "s|$key|/etc/apt/strata-vs-apt.gpg|" "$sources" > "$b/$list"
else
  cp "$sources" "$b/$list"
fi
# apt's archive cache seeded with the .debs strata fetched (named as apt
# names them; apt checks each against its index and fetches what does not
# match), so a comparison against a remote archive downloads them once.
if [ -d "$STRATA_HOME/debs/sha256" ]; then
  mkdir -p "$b/var/cache/apt/archives"
  for d in "$STRATA_HOME"/debs/sha256/*; do
    [ -f "$d" ] || continue
    name=$(dpkg-deb -f "$d" Package Version Architecture 2> /dev/null | awk -F': ' '{print $2}' | paste -sd_) || continue
    [ -n "$name" ] && cp "$d" "$b/var/cache/apt/archives/${name//:/%3a}.deb"
  done
fi
made_null=
if [ ! -e "$b/dev/null" ]; then mkdir -p "$b/dev"; mknod -m 666 "$b/dev/null" c 1 3; made_null=1; fi
# Name resolution for a remote archive: the host's, for the run only.
resolv=
if [ -r /etc/resolv.conf ] && [ ! -L "$b/etc/resolv.conf" ]; then
  if [ -e "$b/etc/resolv.conf" ]; then mv "$b/etc/resolv.conf" "$work/resolv.conf.base"; resolv=moved; else resolv=added; fi
  cp /etc/resolv.conf "$b/etc/resolv.conf"
fi
apt_opts=(-o APT::Sandbox::User=root -o Acquire::Languages=none)
if ! chroot "$b" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive LC_ALL=C SOURCE_DATE_EPOCH="$SOURCE_DATE_EPOCH" \
    /bin/sh -c 'apt-get "$@" -qq update && apt-get "$@" -q -y --no-install-recommends install '"$*"' && apt-get "$@" clean' \
    sh "${apt_opts[@]}" > "$work/apt.log" 2>&1; then
  cat "$work/apt.log" >&2; exit 2
fi
for f in "${added[@]}"; do rm -f "${b:?}/$f"; done
[ -z "$made_null" ] || rm -f "$b/dev/null"
case "$resolv" in moved) mv "$work/resolv.conf.base" "$b/etc/resolv.conf" ;; added) rm -f "$b/etc/resolv.conf" ;; esac

status=0
python3 "$support/tree_diff.py" "$a" "$b" \
  --exclude 'var/lib/apt/lists/*' --exclude 'var/cache/apt/*.bin' --exclude 'var/log/apt/*' \
  --exclude var/log/dpkg.log --exclude var/log/alternatives.log --exclude 'var/lib/dpkg/lock*' \
  --exclude var/lib/dpkg/triggers/Lock --exclude var/cache/apt/archives/lock --exclude var/cache/ldconfig/aux-cache --exclude 'var/cache/debconf/*' \
  --exclude etc/ld.so.cache || status=1
cache_entries() { ldconfig -p -C "$1/etc/ld.so.cache" | tail -n +2 | grep -v '^Cache generated by'; }
if ! diff <(cache_entries "$a") <(cache_entries "$b") > "$work/ldconfig.diff"; then
  echo "etc/ld.so.cache: ldconfig -p differs (< strata, > apt):"; cat "$work/ldconfig.diff"; status=1
else
  echo "etc/ld.so.cache: $(cache_entries "$a" | wc -l) entries, the same in the same order"
fi
exit "$status"
