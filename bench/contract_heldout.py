#!/usr/bin/env python3
"""Scores `strata contract scan` against an answer key written by hand.

The key is one YAML file per repository (KEY_DIR/<name>.yaml), written by a
reader who had not seen strata's code or output:

    repo: owner/name
    commit: <sha>
    runtimes:
      node: {support: ">=20.4.0", floor: "20.4.0", pin: "22", tested: ["20", "22"], provision: "22"}
    build_packages: [python3, make, g++]   # what building and testing needs
    run_only_packages: [ffmpeg]            # what only the production image needs
    ecosystem: ruby                        # optional: the ecosystem the repository is
    hosts: [rubygems.org]                  # optional: registries installing dependencies contacts

For each repository (checked out at REPOS_DIR/<name>) and each tool of the
key it prints the key's floor and version to provision beside strata's, and
for the packages how many of the key's build needs strata provisions and how
many of the key's run-only packages it keeps out of the sandbox; where the key
names them, whether strata names the repository's ecosystem and how many of its
hosts the contract's egress lists (a key host is matched by the same name or a
wildcard over it). A version
matches at the key's precision: "22" matches 22.x.y, "3.12" matches 3.12.z.

With --bundled, a tool that comes with another runtime (npm with Node) whose only
floor is what a lockfile's format implies counts as "nothing to provision" (the
router keeps the npm Node brings, which meets it), not as that floor; and a tool the
key lists with nothing to provision matches a contract that does not name it.

With --runtime-packages, a runtime the contract names (runtime_floors) also
counts as providing the Debian packages that install it (node: nodejs; php:
phpX.Y-cli of the line it provisions and the packages it depends on), which a
plan's runtime row installs;
without it only the contract's library lists count.

Usage: bench/contract_heldout.py [--runtime-packages] [--bundled] STRATA KEY_DIR REPOS_DIR
"""
import json
import pathlib
import re
import subprocess
import sys

import yaml


def parts(v):
    """'>=20.4.0 <21' → (20, 4, 0); 'v1.98' → (1, 98); None for no version."""
    if v is None:
        return None
    m = re.search(r"(\d+(?:\.\d+)*)", str(v))
    return tuple(int(x) for x in m.group(1).split(".")) if m else None


def same(key, ours):
    """Equal at the key's precision; a null key matches a null answer only."""
    k, o = parts(key), parts(ours)
    if k is None or o is None:
        return k is None and o is None
    o = o + (0,) * (len(k) - len(o))
    return o[: len(k)] == k


# Tools another runtime brings: without a version of their own to provision,
# the router takes the one that comes with it (route/tools.cpp).
BUNDLED = {"npm"}


def strata_versions(floor, tool="", bundled=False):
    """The floor of what the root project declares it supports (as the key
    defines it: no support statement, no floor) and the version to provision."""
    provision = (floor.get("provision") or {}).get("range")
    # A floor only a lockfile's format implies (package-lock v3: npm >= 7) is
    # met by the npm of every Node the router installs.
    format_only = all(k.get("field") == "lockfileVersion" for k in floor.get("constraints", []))
    chosen = provision or (None if bundled and tool in BUNDLED and format_only else floor.get("floor"))
    declared = any(k.get("kind") == "support" and k.get("scope", ".") == "." for k in floor.get("constraints", []))
    return (floor.get("floor") if declared else None), chosen


# The Debian packages that install each runtime a contract names.
RUNTIME_PACKAGES = {"node": ["nodejs"], "npm": ["npm"], "yarn": ["yarnpkg"], "ruby": ["ruby"],
                    "python": ["python3"], "elixir": ["elixir"], "erlang": ["erlang"], "composer": ["composer"]}


def runtime_packages(floors):
    out = set()
    for tool, f in floors.items():
        out.update(RUNTIME_PACKAGES.get(tool, []))
        if tool == "php":
            v = parts((f.get("provision") or {}).get("range") or f.get("floor"))
            if v and len(v) >= 2:
                # phpX.Y-cli and what it depends on in Debian 12 (apt-cache show php8.2-cli:
                # php8.2-common, php8.2-opcache, php8.2-readline).
                out.update(f"php{v[0]}.{v[1]}-{p}" for p in ("cli", "common", "opcache", "readline"))
    return out


def main():
    args = [a for a in sys.argv[1:] if a not in ("--runtime-packages", "--bundled")]
    count_runtimes = "--runtime-packages" in sys.argv[1:]
    bundled = "--bundled" in sys.argv[1:]
    if len(args) != 3:
        sys.exit(__doc__)
    strata, key_dir, repos = args[0], pathlib.Path(args[1]), pathlib.Path(args[2])
    totals = dict(floor=0, floor_ok=0, prov=0, prov_ok=0, build=0, build_ok=0, run=0, run_ok=0,
                  eco=0, eco_ok=0, hosts=0, hosts_ok=0)
    print(f"{'repository':14} {'tool':7} {'key floor':10} {'strata floor':13} {'key provision':14} {'strata provision':18}")
    by_eco = {}
    for path in sorted(key_dir.glob("*.yaml")):
        key = yaml.safe_load(path.read_text())
        name = path.stem
        before = dict(totals)
        out = subprocess.run([strata, "contract", "scan", str(repos / name), "--format", "json"],
                             capture_output=True, text=True, check=True).stdout
        c = json.loads(out)
        floors = c.get("runtime_floors", {})
        for tool, want in (key.get("runtimes") or {}).items():
            got = floors.get(tool)
            ours_floor, ours_prov = strata_versions(got, tool, bundled) if got else (None, None)
            f_ok = same(want.get("floor"), ours_floor)
            p_ok = same(want.get("provision"), ours_prov) if got or bundled else False
            totals["floor"] += 1
            totals["floor_ok"] += f_ok
            totals["prov"] += 1
            totals["prov_ok"] += p_ok
            mark = lambda ok: "" if ok else " ✗"
            print(f"{name:14} {tool:7} {str(want.get('floor')):10} {str(ours_floor) + mark(f_ok):13} "
                  f"{str(want.get('provision')):14} {str(ours_prov if got else 'absent') + mark(p_ok)}")
        libs = c.get("system_libs", {})
        build = {l["package"] for k in ("build", "run") for l in libs.get(k, []) if l.get("purpose", "build") == "build"}
        if "build-essential" in build:  # what apt installs with it
            build |= {"gcc", "g++", "make", "libc6-dev", "dpkg-dev"}
        if count_runtimes:
            build |= runtime_packages(floors)
        for p in key.get("build_packages") or []:
            totals["build"] += 1
            totals["build_ok"] += p in build
        missed = [p for p in key.get("build_packages") or [] if p not in build]
        leaked = [p for p in key.get("run_only_packages") or [] if p in build]
        for p in key.get("run_only_packages") or []:
            totals["run"] += 1
            totals["run_ok"] += p not in build
        if missed or leaked:
            print(f"{'':14} packages: build needs not provided {missed}; run-only provisioned {leaked}")
        if key.get("ecosystem"):
            totals["eco"] += 1
            totals["eco_ok"] += key["ecosystem"] in c.get("ecosystems", [])
        ours = [h.get("host", "") for h in c.get("egress_hosts", [])]
        covers = lambda want: any(h == want or (h.startswith("*.") and want.endswith(h[1:])) for h in ours)
        hosts_missed = [h for h in key.get("hosts") or [] if not covers(h)]
        totals["hosts"] += len(key.get("hosts") or [])
        totals["hosts_ok"] += len(key.get("hosts") or []) - len(hosts_missed)
        if hosts_missed:
            print(f"{'':14} hosts not in the contract: {hosts_missed}")
        eco = by_eco.setdefault(key.get("ecosystem") or "-", dict.fromkeys(totals, 0))
        for k in totals:
            eco[k] += totals[k] - before[k]
    if by_eco:
        print()
        for name, e in sorted(by_eco.items()):
            found = e["prov_ok"] + e["build_ok"] + e["hosts_ok"] + e["eco_ok"]
            asked = e["prov"] + e["build"] + e["hosts"] + e["eco"]
            print(f"{name:8} versions to provision {e['prov_ok']}/{e['prov']}, build packages {e['build_ok']}/{e['build']}, "
                  f"hosts {e['hosts_ok']}/{e['hosts']}, ecosystem {e['eco_ok']}/{e['eco']}: "
                  f"{found}/{asked} found ({100 * found // max(asked, 1)} %)")
    t = totals
    print(f"\nfloors {t['floor_ok']}/{t['floor']}, versions to provision {t['prov_ok']}/{t['prov']}, "
          f"build packages provided {t['build_ok']}/{t['build']}, run-only packages kept out {t['run_ok']}/{t['run']}"
          + (f", ecosystem named {t['eco_ok']}/{t['eco']}" if t["eco"] else "")
          + (f", hosts {t['hosts_ok']}/{t['hosts']}" if t["hosts"] else ""))


if __name__ == "__main__":
    main()
