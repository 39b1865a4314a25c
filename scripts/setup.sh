#!/usr/bin/env bash
# Installs every Debian package strata's build and test suite need. Idempotent:
# packages already present are not downloaded again. The one place the build and
# test dependencies are named (CMake finds them; this script provides them).
set -euo pipefail

BUILD_DEPS=(
  build-essential cmake pkg-config ninja-build
  libcurl4-openssl-dev   # registry + archive HTTP: HTTP/1.1+2, TLS, connection reuse
  libssl-dev             # SHA-256/512 (EVP), TLS
  libarchive-dev         # ar, tar, xz, bz2 readers (.deb, rootfs tarballs)
  libzstd-dev            # zstd layers and zstd-compressed .deb members
  libdeflate-dev         # fast, pinned gzip for reproducible layers
  zlib1g-dev             # streaming inflate
  nlohmann-json3-dev     # JSON (manifests, configs, --json output)
  libyaml-cpp-dev        # YAML (lock files, contracts, project.yaml)
  libtomlplusplus-dev    # TOML manifests (Cargo.toml, pyproject.toml, mise.toml) for contract scans
  libcli11-dev           # command-line parsing
  libpugixml-dev         # XML manifests for contract scans (pom.xml, *.csproj, Directory.Build.props, nuget.config)
  libre2-dev             # linear-time regular expressions for patterns from configuration (tag filters)
  publicsuffix           # the Public Suffix List, compiled in: no egress wildcard at or above a public suffix
  libgtest-dev libgmock-dev
  gpgv                   # archive signature verification, as apt does
  libgrpc++-dev libprotobuf-dev protobuf-compiler protobuf-compiler-grpc  # containerd: references: containerd's gRPC API
)
TEST_DEPS=(
  docker-registry        # the CNCF distribution registry, the real server under test
  skopeo umoci           # independent peers for interop tests
  dpkg-dev gnupg         # building and signing the fixture archive
  apache2-utils          # htpasswd for the basic-auth registry
  openssl                # self-signed CA for the TLS registry
  python3                # the test token server and the fault-injecting proxy
  python3-apt            # apt's own version comparison, the oracle of version_test
  python3-cryptography   # ES256 signing for the test token server (tests/support/token_server.py)
  python3-yaml           # a YAML 1.1 reader (PyYAML): rendered egress policies parse to exactly the declared endpoints
  squid curl             # a real proxy enforcing the rendered egress fragment (tests/contract/egress)
  jq                     # reading manifests and layout indexes in the decision and live tests
  xz-utils zstd bzip2 gzip
  podman runc containerd docker.io  # the runtimes users have: each stores and runs strata's images
  tcc                    # the real C compiler packaged by the toolchain fixture archive (testdata/toolchain)
  mmdebstrap             # the Debian minbase of the wider overlay fidelity test (tests/support/make_minbase.sh)
)
LIVE_DEPS=(mmdebstrap libdeflate-tools)   # live archive tests; bench/overlay.sh's compressor-alone floor

want=("${BUILD_DEPS[@]}")
case "${1:-build}" in
  build) ;;
  test) want+=("${TEST_DEPS[@]}") ;;
  live) want+=("${TEST_DEPS[@]}" "${LIVE_DEPS[@]}") ;;
  *) echo "usage: $0 [build|test|live]" >&2; exit 2 ;;
esac
# Node and npm run the CycloneDX project's validator of strata's SBOMs
# (tests/support/cyclonedx_validate.sh); a Node the machine has already
# (another vendor's package, with its own npm) is used as it is.
NODE_DEPS=(nodejs npm)
if [ "${1:-build}" != build ] && ! command -v npm >/dev/null; then want+=("${NODE_DEPS[@]}"); fi

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq || apt-get update
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
