#!/usr/bin/env bash
# Payload of the toolchain fixture packages (called by tests/support/make_archive.sh
# with STRATA_ARCHIVE_DEFS pointing here): NAME ARCH PKGDIR.
#
# The C toolchain is real and small: `gcc`/`cc` is the host's tcc, with the
# host's glibc headers, start files and linker scripts in libc6-dev (so a
# program compiled in a chroot of an overlay runs there). Runtimes (node,
# python3) and libraries (libpq, libsqlite3) are stand-ins compiled from src/:
# each binary prints the version its package claims, each library exports one
# function a test program can link against.
set -euo pipefail
name=$1 arch=$2 d=$3
src=$(cd "$(dirname "$0")/src" && pwd)
triplet=x86_64-linux-gnu
libdir=usr/lib/$triplet

# Copies host files (and symlinks) listed on stdin into the package tree.
copy_host() { tar -C / --no-recursion -cf - -T - | tar -C "$d" -xf -; }
# The regular files and symlinks under PREFIX that the host's package PKG ships.
host_files() { dpkg -L "$1" | grep "^$2" | while IFS= read -r f; do
  if [ -f "$f" ] || [ -L "$f" ]; then echo "${f#/}"; fi; done; }
version_program() {  # PATH TEXT
  mkdir -p "$(dirname "$d/$1")"
  gcc -O1 -DVERSION_TEXT="\"$2\"" -o "$d/$1" "$src/version.c"
}
stand_in_library() {  # NAME SONAME REALNAME
  mkdir -p "$d/$libdir"
  gcc -shared -fPIC -DLIBRARY_NAME="\"$1\"" -Wl,-soname,"$2" -o "$d/$libdir/$3" "$src/libfixture.c"
  ln -s "$3" "$d/$libdir/$2"
}
dev_files() {  # HEADER PCNAME LIB SONAME
  mkdir -p "$(dirname "$d/usr/include/$1")" "$d/$libdir/pkgconfig"
  cp "$src/libfixture.h" "$d/usr/include/$1"
  ln -s "$4" "$d/$libdir/lib$3.so"
  printf 'libdir=/%s\nincludedir=/usr/include\n\nName: %s\nVersion: 1\nDescription: fixture\nLibs: -L${libdir} -l%s\nCflags: -I${includedir}\n' \
    "$libdir" "$2" "$3" > "$d/$libdir/pkgconfig/$2.pc"
}

case "$name" in
  libc6)
    # What tcc and make need: libc.so.6 and the loader (the same bytes the
    # fixture base carries, so a root from the archive alone — `--base
    # scratch` — runs them too) and what the base lacks (libm, libmvec,
    # libpthread, libdl); /lib64's loader link as bookworm ships it.
    mkdir -p "$d/lib/$triplet" "$d/lib64"
    for l in libc.so.6 libm.so.6 libmvec.so.1 libpthread.so.0 libdl.so.2; do cp -L "/lib/$triplet/$l" "$d/lib/$triplet/"; done
    cp -L "$(readlink -f /lib64/ld-linux-x86-64.so.2)" "$d/lib/$triplet/ld-linux-x86-64.so.2"
    ln -s "/lib/$triplet/ld-linux-x86-64.so.2" "$d/lib64/ld-linux-x86-64.so.2"
    ;;
  linux-libc-dev) host_files linux-libc-dev /usr/include/ | copy_host ;;
  libc6-dev)
    host_files libc6-dev /usr/include/ | copy_host
    printf '%s\n' "$libdir"/{crt1.o,crti.o,crtn.o,Scrt1.o,libc_nonshared.a,libc.so,libm.so} | copy_host
    ;;
  tcc)
    { echo usr/bin/tcc; host_files tcc "/$libdir/tcc/include/"; echo "$libdir/tcc/libtcc1.a"; } | copy_host
    ;;
  gcc)
    mkdir -p "$d/usr/bin" "$d/DEBIAN"
    ln -s tcc "$d/usr/bin/gcc"
    printf '#!/bin/sh\nset -e\nupdate-alternatives --install /usr/bin/cc cc /usr/bin/gcc 20\n' > "$d/DEBIAN/postinst"
    chmod 755 "$d/DEBIAN/postinst"
    ;;
  g++)
    # A stand-in: tcc compiles no C++; the command exists for plans and pre-flight.
    version_program usr/bin/g++ "g++ (Debian 12.2.0-14) 12.2.0"
    ln -s g++ "$d/usr/bin/c++"
    ;;
  make) echo usr/bin/make | copy_host ;;
  pkg-config) version_program usr/bin/pkg-config "1.8.1" ;;
  nodejs)
    version_program usr/bin/node "v18.19.0"
    ln -s node "$d/usr/bin/nodejs"
    ;;
  python3.11) version_program usr/bin/python3.11 "Python 3.11.2" ;;
  python3) mkdir -p "$d/usr/bin" && ln -s python3.11 "$d/usr/bin/python3" ;;
  libpq5) stand_in_library libpq libpq.so.5 libpq.so.5.15 ;;
  libpq-dev) dev_files postgresql/libpq-fe.h libpq pq libpq.so.5 ;;
  libsqlite3-0) stand_in_library sqlite3 libsqlite3.so.0 libsqlite3.so.0.8.6 ;;
  libsqlite3-dev) dev_files sqlite3.h sqlite3 sqlite3 libsqlite3.so.0 ;;
esac
