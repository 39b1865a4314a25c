#!/usr/bin/env bash
# Builds the signed fixture apt archive from testdata/archive at test time.
#   make_archive.sh build OUT            everything: keys, .debs, indexes, signed Releases
#   make_archive.sh fresh OUT            the same, never from the cache
#   make_archive.sh release OUT SUITE    regenerate and sign dists/SUITE/Release after a test
#                                        changed files (env: KEY=archive|unknown|none,
#                                        DATE_OFFSET=s, VALID_UNTIL_OFFSET=s, DETACHED=1)
# Keys live in OUT/gnupg (throwaway); OUT/keyring.gpg holds the archive key.
# `build` is a copy of a cached `fresh` build (cached_build.sh), keyed by what
# the archive is made of: this script, every file of the definitions, the
# versions of the host packages the payload hooks and the tools take bytes
# from, and today's date (the Releases' Date field is the build's: a copy is
# at most a day older than a fresh build).
set -euo pipefail
cmd=${1:?usage: make_archive.sh build|release OUT [SUITE]}
out=${2:?output directory}
defs=${STRATA_ARCHIVE_DEFS:-$(cd "$(dirname "$0")/../../testdata/archive" && pwd)}
export GNUPGHOME="${STRATA_ARCHIVE_GNUPGHOME:-$out/gnupg}"
export LC_ALL=C

suite_field() {  # suite field -> value from the suites file
  awk -v RS= -v s="$1" -v f="$2" '$0 ~ "(^|\n)Suite: " s "(\n|$)" {
    n = split($0, lines, "\n"); for (i = 1; i <= n; i++) if (index(lines[i], f ": ") == 1) print substr(lines[i], length(f) + 3) }' \
    "$defs/suites"
}

release() {
  local suite=$1 d="$out/dists/$1" now
  now=$(date +%s)
  local codename; codename=$(suite_field "$suite" Codename)
  {
    echo "Origin: strata-test"
    echo "Label: strata-test"
    echo "Suite: $suite"
    echo "Codename: $codename"
    echo "Date: $(date -u -R -d "@$((now + ${DATE_OFFSET:-0}))")"
    if [ -n "${VALID_UNTIL_OFFSET:-}" ]; then
      echo "Valid-Until: $(date -u -R -d "@$((now + VALID_UNTIL_OFFSET))")"
    fi
    for f in NotAutomatic ButAutomaticUpgrades Acquire-By-Hash; do
      v=$(suite_field "$suite" "$f"); [ -n "$v" ] && echo "$f: $v"
    done
    echo "Architectures: amd64 i386 arm64"
    echo "Components: main"
    echo "SHA256:"
    (cd "$d" && find main -type f -not -path '*/by-hash/*' | sort | while read -r f; do
      printf ' %s %s %s\n' "$(sha256sum < "$f" | cut -d' ' -f1)" "$(stat -c %s "$f")" "$f"
    done)
  } > "$d/Release"
  rm -f "$d/InRelease" "$d/Release.gpg"
  case "${KEY:-archive}" in
    none) ;;
    *) if [ -n "${DETACHED:-}" ]; then
         gpg --batch --yes --quiet --local-user "${KEY:-archive}@strata.test" --detach-sign -o "$d/Release.gpg" "$d/Release"
       else
         gpg --batch --yes --quiet --local-user "${KEY:-archive}@strata.test" --clearsign -o "$d/InRelease" "$d/Release"
       fi ;;
  esac
}

build_fresh() {
  rm -rf "$out"
  mkdir -p "$out/gnupg" "$out/work"
  chmod 700 "$out/gnupg"
  for k in archive unknown; do
    gpg --batch --quiet --passphrase '' --quick-gen-key "strata $k test <$k@strata.test>" ed25519 sign never
  done
  gpg --batch --export archive@strata.test > "$out/keyring.gpg"
  gpg --batch --export --armor archive@strata.test > "$out/keyring.asc"
  awk -v RS= -v dir="$out/work" '{ f = sprintf("%s/%04d.control", dir, NR); print > f; close(f) }' "$defs/packages"
  for c in "$out"/work/*.control; do
    local name version arch suite pkgdir
    name=$(sed -n 's/^Package: //p' "$c"); version=$(sed -n 's/^Version: //p' "$c")
    arch=$(sed -n 's/^Architecture: //p' "$c"); suite=$(sed -n 's/^X-Suite: //p' "$c")
    pkgdir="$out/work/$name-$version-$arch"
    mkdir -p "$pkgdir/DEBIAN" "$pkgdir/usr/share/doc/$name" "$out/pool/$suite"
    # A definition's own Description (continuation lines, trailing blanks
    # and all) is kept; otherwise a one-line one.
    { grep -v '^X-Suite:\|^X-Compression:' "$c"; echo "Maintainer: strata tests <tests@strata.test>"
      grep -q '^Description:' "$c" || echo "Description: fixture package $name"; } > "$pkgdir/DEBIAN/control"
    echo "$name $version" > "$pkgdir/usr/share/doc/$name/README"
    # Optional per-definition payload hook and data member compression (X-Compression).
    if [ -x "$defs/payload.sh" ]; then "$defs/payload.sh" "$name" "$arch" "$pkgdir"; fi
    local comp; comp=$(sed -n 's/^X-Compression: //p' "$c")
    SOURCE_DATE_EPOCH=1700000000 dpkg-deb --root-owner-group "-Z${comp:-gzip}" --build "$pkgdir" \
      "$out/pool/$suite/${name}_${version#*:}_$arch.deb" > /dev/null
  done
  for suite in $(awk '/^Suite: /{print $2}' "$defs/suites"); do
    mkdir -p "$out/pool/$suite"
    for arch in amd64 i386 arm64; do
      local d="$out/dists/$suite/main/binary-$arch"
      mkdir -p "$d"
      (cd "$out" && dpkg-scanpackages -m -a "$arch" "pool/$suite" /dev/null 2> /dev/null) > "$d/Packages"
      xz -k -9 "$d/Packages"
      gzip -k -n -9 "$d/Packages"
      if [ "$(suite_field "$suite" Acquire-By-Hash)" = yes ]; then
        mkdir -p "$d/by-hash/SHA256"
        for f in Packages Packages.xz Packages.gz; do cp "$d/$f" "$d/by-hash/SHA256/$(sha256sum < "$d/$f" | cut -d' ' -f1)"; done
      fi
    done
    release "$suite"
  done
  rm -rf "$out/work"
}

cache_key() {
  {
    sha256sum < "$0"
    (cd "$defs" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    date -u +%F
    dpkg-query -W -f '${Package} ${Version}\n' dpkg gpg gpg-agent gcc-12 libc6 libc6-dev linux-libc-dev tcc xz-utils gzip 2>/dev/null || true
  } | sha256sum | cut -c1-16
}

build() {
  "$(dirname "$0")/cached_build.sh" archive "$(cache_key)" "$out" "$0" fresh
}

case "$cmd" in
  build) build ;;
  fresh) build_fresh ;;
  release) release "${3:?suite}" ;;
  *) echo "unknown command $cmd" >&2; exit 2 ;;
esac
