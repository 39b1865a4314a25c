#!/usr/bin/env bash
# Payload of the overlay fixture packages (called by tests/support/make_archive.sh
# with STRATA_ARCHIVE_DEFS pointing here): NAME ARCH PKGDIR. Programs are
# compiled from src/ with the host's gcc at test time.
set -euo pipefail
name=$1 arch=$2 d=$3
src=$(cd "$(dirname "$0")/src" && pwd)
triplet=x86_64-linux-gnu
[ "$arch" = i386 ] && triplet=i386-linux-gnu
[ "$arch" = arm64 ] && triplet=aarch64-linux-gnu
case "$name" in
  libgreet1)
    mkdir -p "$d/usr/lib/greet/$triplet" "$d/etc/ld.so.conf.d" "$d/DEBIAN"
    if [ "$arch" = amd64 ]; then
      gcc -shared -fPIC -Wl,-soname,libgreet.so.1 -o "$d/usr/lib/greet/$triplet/libgreet.so.1.0" "$src/libgreet.c"
    else
      echo "not an ELF library" > "$d/usr/lib/greet/$triplet/libgreet.so.1.0"
    fi
    ln -s libgreet.so.1.0 "$d/usr/lib/greet/$triplet/libgreet.so.1"
    ln -s libgreet.so.1 "$d/usr/lib/greet/$triplet/libgreet.so"
    echo "/usr/lib/greet/$triplet" > "$d/etc/ld.so.conf.d/greet-$triplet.conf"
    echo "activate-noawait ldconfig" > "$d/DEBIAN/triggers"
    ;;
  greet)
    mkdir -p "$d/usr/bin" "$d/usr/share/doc/greet"
    # Machine-readable (DEP-5): its licence is what an SBOM states for greet.
    printf '%s\n' 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' 'Upstream-Name: greet' '' \
      'Files: *' 'Copyright: 2024 the strata test fixture' 'License: GPL-2+' '' 'Files: libgreet.c' \
      'Copyright: 2024 the strata test fixture' 'License: Expat' >"$d/usr/share/doc/greet/copyright"

    tmp=$(mktemp -d)
    gcc -shared -fPIC -Wl,-soname,libgreet.so.1 -o "$tmp/libgreet.so.1" "$src/libgreet.c"
    gcc -o "$d/usr/bin/greet" "$src/greet.c" "$tmp/libgreet.so.1"
    rm -rf "$tmp"
    ;;
  hello-static)
    # Shipped under /bin: on a merged-/usr base it must land in usr/bin.
    mkdir -p "$d/bin" "$d/etc" "$d/DEBIAN" "$d/usr/share/doc/hello-static"
    gcc -static -O1 -o "$d/bin/hello-static" "$src/hello.c"
    ln "$d/bin/hello-static" "$d/bin/hello-hard"
    echo "greeting=static" > "$d/etc/hello.conf"
    echo "/etc/hello.conf" > "$d/DEBIAN/conffiles"
    echo "excluded by the base's path filter" > "$d/usr/share/doc/hello-static/extra.txt"
    cat > "$d/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
if [ "$1" = configure ]; then
  update-alternatives --quiet --install /usr/bin/hello hello /bin/hello-static 50 \
    --slave /usr/share/man/man1/hello.1.gz hello.1.gz /usr/share/man/man1/hello-static.1.gz \
    --slave /usr/bin/hi hi /bin/hello-hard
fi
SH
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  hello-other)
    mkdir -p "$d/usr/bin" "$d/DEBIAN"
    printf '#!/bin/sh\necho other\n' > "$d/usr/bin/hello-other"
    chmod 755 "$d/usr/bin/hello-other"
    cat > "$d/DEBIAN/postinst" <<'SH'
#!/bin/sh
set -e
update-alternatives --install /usr/bin/hello hello /usr/bin/hello-other 20 --slave /usr/bin/hi hi /usr/bin/hello-other
update-alternatives --install /usr/bin/cpp-like cpp-like "$SOMEWHERE/cpp" 10
SH
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  daemon-user)
    mkdir -p "$d/DEBIAN"
    # adduser is reproduced; systemd-sysusers is not (listed as such).
    printf '#!/bin/sh\nset -e\nadduser --system --group daemonuser\nsystemd-sysusers daemon-user.conf\n' > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  shared-a|shared-b|shared-c|early-shared)
    mkdir -p "$d/usr/share/shared"
    echo "from $name" > "$d/usr/share/shared/file"
    ;;
  libpal1)
    # Two libraries in the multiarch directory, each with its SONAME link.
    mkdir -p "$d/usr/lib/$triplet" "$d/DEBIAN"
    gcc -shared -fPIC -Wl,-soname,libpal.so.1 -o "$d/usr/lib/$triplet/libpal.so.1.2" "$src/libgreet.c"
    gcc -shared -fPIC -Wl,-soname,libpalx.so.3 -o "$d/usr/lib/$triplet/libpalx.so.3.0" "$src/libgreet.c"
    ln -s libpal.so.1.2 "$d/usr/lib/$triplet/libpal.so.1"
    ln -s libpalx.so.3.0 "$d/usr/lib/$triplet/libpalx.so.3"
    echo "activate-noawait ldconfig" > "$d/DEBIAN/triggers"
    ;;
  libpal-common)
    mkdir -p "$d/usr/share/pal"
    echo "pal data" > "$d/usr/share/pal/data"
    ;;
  libpal-dev)
    # Development links as real -dev packages ship them: one straight at the
    # library file (not its SONAME), one absolute through /lib.
    mkdir -p "$d/usr/lib/$triplet" "$d/usr/include"
    ln -s libpal.so.1.2 "$d/usr/lib/$triplet/libpal.so"
    ln -s "/lib/$triplet/libpalx.so.3" "$d/usr/lib/$triplet/libpalx.so"
    echo "void greet(const char* who);" > "$d/usr/include/pal.h"
    ;;
  diverted-tool)
    mkdir -p "$d/usr/bin"
    printf '#!/bin/sh\necho packaged\n' > "$d/usr/bin/diverted-tool"
    chmod 755 "$d/usr/bin/diverted-tool"
    ;;
esac
