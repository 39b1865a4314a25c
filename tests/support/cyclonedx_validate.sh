#!/usr/bin/env bash
# Validates CycloneDX JSON documents with the CycloneDX project's own
# validator (@cyclonedx/cyclonedx-library's JsonStrictValidator, which
# checks the bom-1.5 schema and its SPDX licence list), installed from the
# npm registry once into the test cache, versions pinned.
#   cyclonedx_validate.sh FILE...   exit 0: every file valid; 1: one is not (its errors printed)
set -euo pipefail
[ $# -gt 0 ] || { echo "usage: cyclonedx_validate.sh FILE..." >&2; exit 2; }
command -v npm >/dev/null || { echo "cyclonedx_validate: npm is missing (scripts/setup.sh test installs it)" >&2; exit 2; }
versions="@cyclonedx/cyclonedx-library@10.3.0 ajv@8.20.0 ajv-formats@3.0.1 ajv-formats-draft2019@1.6.1"
cache=${STRATA_TEST_CACHE:-${TMPDIR:-/tmp}/strata-test-cache}
dir="$cache/cyclonedx-$(echo "$versions" | sha256sum | cut -c1-16)"
if [ ! -e "$dir/.installed" ]; then
  mkdir -p "$cache"
  exec 9>"$dir.lock"
  flock 9
  if [ ! -e "$dir/.installed" ]; then
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    echo '{"name":"strata-cyclonedx-validator","private":true}' > "$dir.tmp/package.json"
    # shellcheck disable=SC2086
    (cd "$dir.tmp" && npm install --no-audit --no-fund --ignore-scripts --save-exact $versions >&2)
    touch "$dir.tmp/.installed"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
fi
status=0
for f in "$@"; do
  NODE_PATH="$dir/node_modules" node -e '
    const CDX = require("@cyclonedx/cyclonedx-library");
    const text = require("fs").readFileSync(process.argv[1], "utf8");
    new CDX.Validation.JsonStrictValidator(CDX.Spec.Version.v1dot5).validate(text).then(errors => {
      if (errors === null) { console.log(process.argv[1] + ": valid CycloneDX 1.5"); return; }
      console.log(process.argv[1] + ": " + JSON.stringify(errors, null, 1)); process.exitCode = 1;
    }, e => { console.error(e); process.exitCode = 2; });' "$f" || status=1
done
exit $status
