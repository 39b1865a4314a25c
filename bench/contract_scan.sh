#!/usr/bin/env bash
# Contract scan benchmark: a synthetic npm-workspaces monorepo of N workspace
# packages (default 2000) with a package-lock.json of about 30 MB, scanned by
# `strata contract scan`. Prints wall time and peak RSS (/usr/bin/time -v).
# Goal (issue 6): under 1 s and under 200 MB, growing linearly with size.
#
# usage: bench/contract_scan.sh [STRATA_BINARY] [PACKAGES] [LOCK_ENTRIES]
set -euo pipefail
STRATA=${1:-${STRATA:-strata}}
PACKAGES=${2:-2000}
ENTRIES=${3:-100000}
[ -x /usr/bin/time ] || { echo "contract_scan: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

python3 - "$work/repo" "$PACKAGES" "$ENTRIES" <<'PY'
import json, os, sys
root, npk, nent = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
os.makedirs(root)
natives = ["sharp", "better-sqlite3", "bcrypt", "canvas", "@vscode/sqlite3", "esbuild"]
with open(os.path.join(root, "package.json"), "w") as f:
    json.dump({"name": "bench-monorepo", "private": True, "workspaces": ["packages/*"],
               "engines": {"node": ">=20"}}, f)
for i in range(npk):
    d = os.path.join(root, "packages", f"pkg-{i:05d}")
    os.makedirs(d)
    deps = {f"dep-{(i * 7 + k) % nent:06d}": "^1.0.0" for k in range(5)}
    if i % 100 == 0:
        deps[natives[i // 100 % len(natives)]] = "*"
    with open(os.path.join(d, "package.json"), "w") as f:
        json.dump({"name": f"@bench/pkg-{i:05d}", "version": "1.0.0", "dependencies": deps}, f)
with open(os.path.join(root, "package-lock.json"), "w") as f:
    f.write('{\n  "name": "bench-monorepo",\n  "lockfileVersion": 3,\n  "requires": true,\n  "packages": {\n')
    f.write('    "": {"name": "bench-monorepo", "workspaces": ["packages/*"]}')
    for i in range(npk):
        f.write(f',\n    "packages/pkg-{i:05d}": {{"name": "@bench/pkg-{i:05d}", "version": "1.0.0"}}')
    for i in range(nent):
        name = natives[i % len(natives)] if i % 5000 == 0 else f"dep-{i:06d}"
        nested = f"node_modules/parent-{i % 97}/" if i % 3 == 0 else ""
        entry = {"version": f"1.{i % 50}.{i % 7}",
                 "resolved": f"https://registry.npmjs.org/{name}/-/{name.split('/')[-1]}-1.{i % 50}.{i % 7}.tgz",
                 "integrity": "sha512-" + ("A" * 86) + "==",
                 "license": "MIT",
                 "dependencies": {f"dep-{(i + k) % nent:06d}": "^1.0.0" for k in range(2)}}
        if i % 1000 == 0:
            entry["hasInstallScript"] = True
        f.write(f',\n    "{nested}node_modules/{name}": ' + json.dumps(entry))
    f.write('\n  }\n}\n')
PY

lock_size=$(stat -c %s "$work/repo/package-lock.json")
echo "repo: $PACKAGES workspace packages, package-lock.json $((lock_size / 1024 / 1024)) MiB ($ENTRIES entries)"
# Warm the page cache so the number measures the scanner, not the disk.
cat "$work/repo/package-lock.json" > /dev/null
/usr/bin/time -v "$STRATA" contract scan "$work/repo" --format json > "$work/contract.json" 2> "$work/time.txt" || {
  cat "$work/time.txt" >&2; exit 1; }
wall=$(grep "Elapsed (wall clock)" "$work/time.txt" | awk '{print $NF}')
rss=$(grep "Maximum resident set size" "$work/time.txt" | awk '{print $NF}')
natives=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); print(len(c["native_build"]["packages"]), len(c["workspaces"]))' "$work/contract.json")
echo "scan: wall ${wall} (m:ss), peak RSS $((rss / 1024)) MiB; native packages / workspaces found: $natives"
