#!/usr/bin/env bash
# TLS inside an image, with no --cacert: a local `openssl s_server` whose
# certificate is signed by CA (a CA the image's trust store should hold),
# and curl run in a chroot of ROOTFS against it; then the same with a server
# signed by a CA the image does not know, which must fail (so the first
# passing says the store is used, not that nothing is checked). Also
# `openssl verify -CApath /etc/ssl/certs` of the server's certificate in the
# chroot (the subject-hash links). Prints one line per check; exits 1 when
# any fails. Needs root (chroot, mount).
#   tls_in_image.sh ROOTFS CA_CERT CA_KEY
set -euo pipefail
root=${1:?rootfs}; ca=${2:?CA certificate}; ca_key=${3:?CA key}
work=$(mktemp -d "${TMPDIR:-/tmp}/strata-tls.XXXXXX")
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2> /dev/null || true; done
  umount "$root/dev" 2> /dev/null || true
  rm -rf "$work" "$root/tmp/strata-tls"
}
trap cleanup EXIT
mkdir -p "$root/dev" && mount --bind /dev "$root/dev"

# server certificates for 127.0.0.1, one from each CA
serve() {  # NAME CA_CERT CA_KEY: port in $work/NAME.port; the server runs until exit
  local name=$1 cacert=$2 cakey=$3
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/$name.key" \
    -subj "/CN=127.0.0.1" -out "$work/$name.csr" 2> /dev/null
  printf 'subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' > "$work/$name.ext"
  openssl x509 -req -in "$work/$name.csr" -CA "$cacert" -CAkey "$cakey" -CAcreateserial -days 2 \
    -extfile "$work/$name.ext" -out "$work/$name.crt" 2> /dev/null
  local port
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  openssl s_server -quiet -accept "127.0.0.1:$port" -cert "$work/$name.crt" -key "$work/$name.key" -www \
    > "$work/$name.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 100); do
    if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$port)).close()" 2> /dev/null; then break; fi
    sleep 0.1
  done
  echo "$port" > "$work/$name.port"
}
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/other-ca.key" \
  -subj "/CN=strata test CA the image does not know" -days 2 -out "$work/other-ca.crt" 2> /dev/null
serve good "$ca" "$ca_key"
serve bad "$work/other-ca.crt" "$work/other-ca.key"
good=$(cat "$work/good.port") bad=$(cat "$work/bad.port")

failures=0
if out=$(chroot "$root" curl -sS "https://127.0.0.1:$good/" 2>&1); then
  echo "ok    curl https://127.0.0.1 (server signed by the image's CA), no --cacert"
else
  echo "FAIL  curl https://127.0.0.1 (server signed by the image's CA), no --cacert: $out"; failures=$((failures + 1))
fi
if out=$(chroot "$root" curl -sS "https://127.0.0.1:$bad/" 2>&1); then
  echo "FAIL  curl https://127.0.0.1 (server signed by an unknown CA) succeeded"; failures=$((failures + 1))
else
  echo "ok    curl https://127.0.0.1 (server signed by an unknown CA) fails: $out"
fi
mkdir -p "$root/tmp/strata-tls" && cp "$work/good.crt" "$root/tmp/strata-tls/server.crt"
if out=$(chroot "$root" openssl verify -CApath /etc/ssl/certs /tmp/strata-tls/server.crt 2>&1); then
  echo "ok    openssl verify -CApath /etc/ssl/certs: $out"
else
  echo "FAIL  openssl verify -CApath /etc/ssl/certs: $out"; failures=$((failures + 1))
fi
[ "$failures" = 0 ]
