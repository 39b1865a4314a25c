#!/usr/bin/env bash
# A tiny merged-/usr root filesystem tarball for overlay tests, made from the
# host's own dynamic loader and libc (so dynamically linked test programs run
# under chroot), with the dpkg state the tests exercise: a path-exclude
# filter, a local diversion, a status file, ld.so.conf with includes.
#   make_overlay_base.sh OUT.tar
set -euo pipefail
out=${1:?usage: make_overlay_base.sh OUT.tar}
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
triplet=$(gcc -print-multiarch)
mkdir -p "$root/usr/bin" "$root/usr/sbin" "$root/usr/lib/$triplet" "$root/usr/lib64" "$root/etc/dpkg/dpkg.cfg.d" \
  "$root/etc/ld.so.conf.d" "$root/var/lib/dpkg/info" "$root/var/lib/dpkg/alternatives" "$root/etc/alternatives" \
  "$root/var/lib/apt" "$root/usr/share/doc" "$root/tmp"
for l in bin sbin lib lib64; do ln -s "usr/$l" "$root/$l"; done
cp -L "/lib/$triplet/libc.so.6" "$root/usr/lib/$triplet/"
loader=$(readlink -f /lib64/ld-linux-x86-64.so.2)
cp -L "$loader" "$root/usr/lib/$triplet/ld-linux-x86-64.so.2"
ln -s "../lib/$triplet/ld-linux-x86-64.so.2" "$root/usr/lib64/ld-linux-x86-64.so.2"
echo 'include /etc/ld.so.conf.d/*.conf' > "$root/etc/ld.so.conf"
printf '# slim image\npath-exclude=/usr/share/doc/*/extra.txt\n' > "$root/etc/dpkg/dpkg.cfg.d/excludes"
printf '/usr/bin/diverted-tool\n/usr/bin/diverted-tool.distrib\n:\n' > "$root/var/lib/dpkg/diversions"
cat > "$root/var/lib/dpkg/status" <<'ST'
Package: base-files
Status: install ok installed
Priority: required
Section: admin
Maintainer: strata tests <tests@strata.test>
Architecture: amd64
Version: 12.4
Description: fixture base system
 The minimal base of the overlay tests.
 .
 Second paragraph.

ST
printf '/.\n/etc\n' > "$root/var/lib/dpkg/info/base-files.list"
echo 'root:x:0:0:root:/root:/bin/sh' > "$root/etc/passwd"
echo 'root:x:0:' > "$root/etc/group"
tar --sort=name --numeric-owner -C "$root" -cf "$out" .
