#!/usr/bin/env bash
# Payload of the scratch fixture packages (called by tests/support/make_archive.sh
# with STRATA_ARCHIVE_DEFS pointing here): NAME ARCH PKGDIR. Paths under
# /bin and /lib are shipped unmerged, as bookworm's packages do.
set -euo pipefail
name=$1 d=$3
src=$(cd "$(dirname "$0")/src" && pwd)
case "$name" in
  base-passwd)
    mkdir -p "$d/usr/share/base-passwd" "$d/DEBIAN"
    printf 'root:*:0:0:root:/root:/bin/tinysh\ndaemon:*:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n_apt:*:42:65534::/nonexistent:/usr/sbin/nologin\nnobody:*:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n' \
      > "$d/usr/share/base-passwd/passwd.master"
    printf 'root:*:0:\ndaemon:*:1:\nmail:*:8:\nshadow:*:42:\nutmp:*:43:\nstaff:*:50:alice\nnogroup:*:65534:\n' \
      > "$d/usr/share/base-passwd/group.master"
    printf '#!/bin/sh\nset -e\nif [ ! -e "$DPKG_ROOT/etc/passwd" ]; then cp "$DPKG_ROOT/usr/share/base-passwd/passwd.master" "$DPKG_ROOT/etc/passwd"; fi\nupdate-passwd\n' \
      > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  base-files)
    mkdir -p "$d/usr/share/base-files" "$d/etc/dpkg/origins" "$d/var/spool" "$d/var/log" "$d/usr/share/info" \
      "$d/root" "$d/tmp" "$d/DEBIAN"
    chmod 700 "$d/root"; chmod 1777 "$d/tmp"
    echo "Vendor: Debian" > "$d/etc/dpkg/origins/debian"
    echo "export PATH" > "$d/usr/share/base-files/profile"
    echo "# ~/.profile" > "$d/usr/share/base-files/dot.profile"
    echo "# ~/.bashrc" > "$d/usr/share/base-files/dot.bashrc"
    echo "welcome to the scratch fixture" > "$d/usr/share/base-files/motd"
    echo "info directory" > "$d/usr/share/base-files/info.dir"
    printf '#!/bin/sh\nset -e\ninstall_from_default() { :; }\ninstall_from_default motd /etc/motd\n' > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  debianutils)
    mkdir -p "$d/usr/share/debianutils" "$d/bin" "$d/DEBIAN"
    printf '# /etc/shells: valid login shells\n/bin/sh\n' > "$d/usr/share/debianutils/shells"
    printf '#!/bin/sh\necho which\n' > "$d/bin/which.debianutils"
    chmod 755 "$d/bin/which.debianutils"
    printf '#!/bin/sh\nset -e\nupdate-shells\nupdate-alternatives --install /usr/bin/which which /bin/which.debianutils 0\n' \
      > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  tinysh)
    mkdir -p "$d/bin" "$d/usr/share/debianutils/shells.d"
    gcc -static -O1 -o "$d/bin/tinysh" "$src/tinysh.c"
    ln -s tinysh "$d/bin/sh"
    printf '/bin/tinysh\n' > "$d/usr/share/debianutils/shells.d/tinysh"
    ;;
  libtiny)
    mkdir -p "$d/lib/x86_64-linux-gnu"
    echo "not really a library" > "$d/lib/x86_64-linux-gnu/libtiny.so.1"
    ;;
  libc-bin)
    mkdir -p "$d/usr/share/libc-bin" "$d/DEBIAN"
    printf 'passwd: files\ngroup: files\n' > "$d/usr/share/libc-bin/nsswitch.conf"
    printf '#!/bin/sh\nset -e\ninstall_from_default nsswitch.conf /etc/nsswitch.conf\n' > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  hello-user)
    mkdir -p "$d/DEBIAN"
    printf '#!/bin/sh\nset -e\nadduser --system hello\n' > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
esac
