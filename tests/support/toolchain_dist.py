#!/usr/bin/env python3
"""Builds the toolchain fixture: a tree that, served statically
(dist_server.py), looks like each project's official distribution of Node,
npm packages, Go, Rust and Python (python-build-standalone), with tiny
stand-in runtimes (#!/bin/sh scripts that print their version as the real
ones do), and Eclipse Temurin (the Adoptium API) and the .NET SDK (its
release metadata). Usage: toolchain_dist.py OUT

Layouts (paths under OUT, which dist_server.py serves as the URL root):
  node/          https://nodejs.org/dist: index.json, vX.Y.Z/node-vX.Y.Z-<plat>.tar.{xz,gz},
                 -headers.tar.gz, SHASUMS256.txt{,.asc,.sig}
  npm/           https://registry.npmjs.org: NAME (served from NAME/index.json, with
                 @@BASE@@ for the server's URL) and NAME/-/NAME-V.tgz
  go/dl/         https://go.dev/dl: index.html is the ?mode=json&include=all listing
  rust/          https://static.rust-lang.org: manifests.txt, dist/rust-V-<triple>.tar.xz{,.sha256,.asc}
  python/        .../python-build-standalone/releases/download: 20241016/SHA256SUMS and assets
  java/          https://api.adoptium.net: v3/info/available_releases and
                 v3/assets/feature_releases/MAJOR/ga (served from index.json; the query is
                 ignored), archives under binaries/jdk-V+B/ (linked by @@BASE@@ URLs)
  dotnet/        https://builds.dotnet.microsoft.com/dotnet: release-metadata/releases-index.json,
                 release-metadata/CHANNEL/releases.json (naming the official URLs, as the real
                 metadata does), Sdk/V/dotnet-sdk-V-RID.tar.gz (no top directory: ./dotnet, ./sdk/V/…)
Variants (one defect each; every artifact of a variant carries it):
  node-badsig node-tampered-sums node-badsum node-missing node-dotdot node-abs-symlink
  node-link-out node-hardlink-out node-two-tops npm-badintegrity go-badsum rust-badsig
  rust-badsum python-badsum java-badsum java-badsize dotnet-badsum dotnet-nohost
Keys: OUT/keys/{release.asc,release.gpg,fingerprint,wrong.asc}, throwaway, in
OUT/keys/gnupg. OUT/.complete is written last: this script's sha256.

Deterministic except for the keys and signatures: tar members sorted, owner
0:0, mtime 1700000000 (npm tarballs: 1985-10-26, as npm pack writes them),
gzip without name or time."""
import base64
import gzip
import hashlib
import io
import json
import lzma
import os
import shutil
import subprocess
import sys
import tarfile

MTIME = 1700000000
NPM_MTIME = 499162500  # npm pack's fixed date, 1985-10-26T08:15:00Z
GOOD = "release@strata.test"
WRONG = "wrong@strata.test"

# ---------------------------------------------------------------- archives
# An entry: (name, kind, mode, payload); kind file|sym|hard|dir, payload the
# bytes of a file or a link's target.


def f(name, data, mode=0o644):
    return (name, "file", mode, data.encode() if isinstance(data, str) else data)


def x(name, data):
    return f(name, data, 0o755)


def sym(name, target):
    return (name, "sym", 0o777, target)


def hard(name, target):
    return (name, "hard", 0o644, target)


def tar(entries, mtime=MTIME, dirs=True):
    """A tar stream (GNU format) of `entries`, sorted by name, with each
    parent directory as its own entry unless dirs=False (npm pack writes none).
    Names are kept verbatim (hostile ones included)."""
    entries = list(entries)
    if dirs:
        have = {e[0].rstrip("/") for e in entries}
        for e in list(entries):
            parts = e[0].split("/")[:-1]
            for i in range(1, len(parts) + 1):
                if ".." in parts[:i]:
                    break
                d = "/".join(parts[:i])
                if d not in have:
                    have.add(d)
                    entries.append((d + "/", "dir", 0o755, None))
    entries.sort(key=lambda e: e[0])
    seen = set()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as t:
        for name, kind, mode, payload in entries:
            ti = tarfile.TarInfo(name)
            ti.mtime, ti.mode, ti.uid, ti.gid, ti.uname, ti.gname = mtime, mode, 0, 0, "", ""
            data = None
            if kind == "file":
                ti.size, data = len(payload), io.BytesIO(payload)
            elif kind == "dir":
                ti.type = tarfile.DIRTYPE
            elif kind == "sym":
                ti.type, ti.linkname = tarfile.SYMTYPE, payload
            elif kind == "hard":
                # A hard link names an earlier member; one pointing out of the
                # tree (a hostile variant) names no member at all.
                assert payload in seen or not payload.startswith(name.split("/")[0] + "/"), name
                ti.type, ti.linkname = tarfile.LNKTYPE, payload
            t.addfile(ti, data)
            seen.add(name)
    return buf.getvalue()


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def xz(data):
    return lzma.compress(data, format=lzma.FORMAT_XZ, check=lzma.CHECK_CRC64, preset=6)


def write(path, data, mode=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as out:
        out.write(data.encode() if isinstance(data, str) else data)
    if mode is not None:
        os.chmod(path, mode)


def sha256(data):
    return hashlib.sha256(data).hexdigest()


def wrong_hex(hexdigest):
    """The same digest with its first digit changed: well formed, not matching."""
    return ("0" if hexdigest[0] != "0" else "1") + hexdigest[1:]


def sums_file(files):  # {filename: bytes} -> "<sha256>  <name>" lines, sorted
    return "".join(f"{sha256(files[n])}  {n}\n" for n in sorted(files))


# ---------------------------------------------------------------- keys


class Keys:
    def __init__(self, out):
        self.home = os.path.join(out, "keys", "gnupg")
        os.makedirs(self.home, mode=0o700)
        os.chmod(self.home, 0o700)
        self.env = dict(os.environ, GNUPGHOME=self.home, LC_ALL="C")
        for who in ("release", "wrong"):
            self.gpg("--passphrase", "", "--quick-gen-key", f"strata {who} test <{who}@strata.test>",
                     "ed25519", "sign", "never")
        keys = os.path.join(out, "keys")
        write(os.path.join(keys, "release.asc"), self.gpg("--export", "--armor", GOOD))
        write(os.path.join(keys, "release.gpg"), self.gpg("--export", GOOD))
        write(os.path.join(keys, "wrong.asc"), self.gpg("--export", "--armor", WRONG))
        fprs = [l.split(":")[9] for l in self.gpg("--with-colons", "--fingerprint", GOOD).decode().splitlines()
                if l.startswith("fpr:")]
        write(os.path.join(keys, "fingerprint"), fprs[0].upper() + "\n")

    def gpg(self, *args, data=None):
        return subprocess.run(["gpg", "--batch", "--yes", "--quiet", *args], env=self.env, input=data,
                              stdout=subprocess.PIPE, check=True).stdout

    def clearsign(self, text, key=GOOD):
        return self.gpg("--local-user", key, "--clearsign", data=text.encode())

    def detach(self, data, key=GOOD, armor=False):
        return self.gpg("--local-user", key, "--detach-sign", *(["--armor"] if armor else []), data=data)

    def stop(self):
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=self.env, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


# ---------------------------------------------------------------- node

# version -> (date, bundled npm, lts, security, modules)
NODE = {
    "23.0.0": ("2024-10-16", "10.9.0", False, False, "131"),
    "22.12.0": ("2024-12-03", "10.9.0", "Jod", False, "127"),
    "22.11.0": ("2024-10-29", "10.9.0", "Jod", False, "127"),
    "20.18.0": ("2024-10-03", "10.8.2", "Iron", False, "115"),
    "20.17.0": ("2024-08-21", "10.8.2", "Iron", False, "115"),
    "18.20.4": ("2024-07-08", "10.7.0", "Hydrogen", True, "108"),
}
NODE_PHANTOM = "23.0.0"  # listed, but without linux builds and no directory


def node_script(ver):
    return f"""#!/bin/sh
case "$1" in
  --version|-v) echo v{ver} ;;
  -p) case "$2" in process.versions.node) echo {ver} ;; process.version) echo v{ver} ;; *) exit 1 ;; esac ;;
  -e) exit 0 ;;
  *) echo "node stand-in v{ver}" >&2; exit 1 ;;
esac
"""


def version_script(text):  # a stand-in answering --version / -v
    return f"""#!/bin/sh
case "$1" in --version|-v) echo "{text}" ;; *) exit 0 ;; esac
"""


def node_headers(top, ver):
    major, minor, patch = ver.split(".")
    h = f"{top}/include/node"
    return [
        f(f"{h}/node_version.h", f"#ifndef SRC_NODE_VERSION_H_\n#define SRC_NODE_VERSION_H_\n"
          f"#define NODE_MAJOR_VERSION {major}\n#define NODE_MINOR_VERSION {minor}\n"
          f"#define NODE_PATCH_VERSION {patch}\n#define NODE_VERSION_IS_RELEASE 1\n"
          f"#define NODE_MODULE_VERSION {NODE[ver][4]}\n#endif\n"),
        f(f"{h}/common.gypi", "{ 'variables': {} }\n"),
        f(f"{h}/config.gypi", "{ 'variables': { 'node_module_version': %s } }\n" % NODE[ver][4]),
        f(f"{h}/node.h", "#include \"node_version.h\"\n"),
        f(f"{h}/node_api.h", "#include \"js_native_api.h\"\n"),
        f(f"{h}/js_native_api.h", "/* stand-in */\n"),
        # The same inode as js_native_api.h: the tree's hard link pair.
        hard(f"{h}/js_native_api_types.h", f"{h}/js_native_api.h"),
    ]


def node_tree(ver, plat):
    top = f"node-v{ver}-{plat}"
    npm = NODE[ver][1]
    nm = f"{top}/lib/node_modules"
    return top, [
        x(f"{top}/bin/node", node_script(ver)),
        sym(f"{top}/bin/npm", "../lib/node_modules/npm/bin/npm-cli.js"),
        sym(f"{top}/bin/npx", "../lib/node_modules/npm/bin/npx-cli.js"),
        sym(f"{top}/bin/corepack", "../lib/node_modules/corepack/dist/corepack.js"),
        x(f"{nm}/npm/bin/npm-cli.js", version_script(npm)),
        x(f"{nm}/npm/bin/npx-cli.js", version_script(npm)),
        f(f"{nm}/npm/package.json", json.dumps({"name": "npm", "version": npm,
          "bin": {"npm": "bin/npm-cli.js", "npx": "bin/npx-cli.js"}}, indent=2) + "\n"),
        x(f"{nm}/corepack/dist/corepack.js", version_script("0.29.4")),
        *node_headers(top, ver),
        f(f"{top}/share/doc/node/gdbinit", "# stand-in\n"),
        f(f"{top}/share/man/man1/node.1", ".TH NODE 1\n"),
        f(f"{top}/README.md", f"Node.js v{ver} (strata test stand-in)\n"),
        f(f"{top}/LICENSE", "MIT (stand-in)\n"),
        f(f"{top}/CHANGELOG.md", f"# v{ver}\n"),
    ]


NODE_HOSTILE = {  # variant -> what is added to the linux-x64 tree
    "node-dotdot": lambda top: [f(f"{top}/../../evil", "escaped\n")],
    "node-abs-symlink": lambda top: [sym(f"{top}/bin/evil", "/etc/passwd")],
    "node-link-out": lambda top: [sym(f"{top}/lib/out", "../../../../../etc")],
    "node-hardlink-out": lambda top: [hard(f"{top}/bin/evil", "/etc/passwd")],
    "node-two-tops": lambda top: [f("other/README.md", "a second top directory\n")],
}


def build_node(keys, out, name, versions, platforms, defect=None):
    """`name`: the directory under OUT (node, or a variant's name)."""
    base = os.path.join(out, name)
    index = []
    for ver in sorted(NODE, key=lambda v: tuple(map(int, v.split("."))), reverse=True):
        date, npm, lts, security, modules = NODE[ver]
        if ver == NODE_PHANTOM and defect is None:
            index.append({"version": f"v{ver}", "date": date, "files": ["headers", "osx-arm64-tar", "src", "win-x64-zip"],
                          "npm": npm, "v8": "12.9.202.26", "uv": "1.48.0", "zlib": "1.3.0.1", "openssl": "3.0.15+quic",
                          "modules": modules, "lts": lts, "security": security})
        if ver not in versions:
            continue
        plats = platforms(ver)
        index.append({"version": f"v{ver}", "date": date, "files": sorted(["headers", "src", *plats]),
                      "npm": npm, "v8": "11.3.244.8", "uv": "1.46.0", "zlib": "1.3.0.1", "openssl": "3.0.13+quic",
                      "modules": modules, "lts": lts, "security": security})
        d = os.path.join(base, f"v{ver}")
        files = {}
        for plat in plats:
            top, tree = node_tree(ver, plat)
            if defect in NODE_HOSTILE:
                tree += NODE_HOSTILE[defect](top)
            t = tar(tree)
            files[f"{top}.tar.xz"], files[f"{top}.tar.gz"] = xz(t), gz(t)
        files[f"node-v{ver}-headers.tar.gz"] = gz(tar(node_headers(f"node-v{ver}", ver)))
        sums = sums_file(files)
        key = WRONG if defect == "node-badsig" else GOOD
        asc, sig = keys.clearsign(sums, key), keys.detach(sums.encode(), key)
        if defect == "node-tampered-sums":
            # The headers line changes after signing: the archives' lines
            # still match, only the signatures (.asc and .sig) fail.
            line = next(l for l in sums.splitlines() if l.endswith("-headers.tar.gz"))
            bad = wrong_hex(line[:64]) + line[64:]
            sums, asc = sums.replace(line, bad), asc.replace(line.encode(), bad.encode())
            assert bad.encode() in asc
        for plat in plats:
            top, tree = node_tree(ver, plat)
            if defect == "node-badsum":  # other bytes under the signed name
                t = tar(tree + [x(f"{top}/bin/backdoor", "#!/bin/sh\n")])
                files[f"{top}.tar.xz"], files[f"{top}.tar.gz"] = xz(t), gz(t)
            if defect == "node-missing":
                del files[f"{top}.tar.xz"], files[f"{top}.tar.gz"]
        for n, data in files.items():
            write(os.path.join(d, n), data)
        write(os.path.join(d, "SHASUMS256.txt"), sums)
        write(os.path.join(d, "SHASUMS256.txt.asc"), asc)
        write(os.path.join(d, "SHASUMS256.txt.sig"), sig)
    write(os.path.join(base, "index.json"), json.dumps(index, indent=1) + "\n")


# ---------------------------------------------------------------- npm


def npm_packument(name, versions, description, time):
    return {
        "_id": name, "name": name, "description": description,
        "dist-tags": {}, "versions": versions, "time": time, "license": "MIT",
        "maintainers": [{"name": "strata-test", "email": "tests@strata.test"}],
        "readme": "", "readmeFilename": "",
    }


def npm_version(registry, name, ver, tgz, fields, bad_integrity=False):
    integrity = hashlib.sha512(tgz + (b"x" if bad_integrity else b"")).digest()
    return {"name": name, "version": ver, **fields, "_id": f"{name}@{ver}",
            "dist": {"tarball": f"@@BASE@@/{registry}/{name}/-/{name}-{ver}.tgz",
                     "integrity": "sha512-" + base64.b64encode(integrity).decode(),
                     "shasum": hashlib.sha1(tgz).hexdigest()}}


def node_package_tgz(ver, cpu):
    pkg = {"name": f"node-linux-{cpu}", "version": ver, "description": "node",
           "os": ["linux"], "cpu": [cpu], "bin": {"node": "bin/node"}, "license": "MIT"}
    top, tree = node_tree(ver, f"linux-{cpu}")
    keep = [e for e in tree if e[0].startswith((f"{top}/bin/node", f"{top}/include/", f"{top}/share/"))
            or e[0] in (f"{top}/README.md", f"{top}/LICENSE")]
    tree = [(e[0].replace(top, "package", 1), e[1], e[2],
             e[3].replace(top, "package", 1) if e[1] == "hard" else e[3]) for e in keep]
    return gz(tar(tree + [f("package/package.json", json.dumps(pkg, indent=2) + "\n")], NPM_MTIME, dirs=False)), pkg


NPM_VERSIONS = {  # version -> (engines.node, deprecated, date)
    "10.8.2": ("^18.17.0 || >=20.5.0", None, "2024-07-09T00:00:00.000Z"),
    "10.9.1": ("^18.17.0 || >=20.5.0", "this version is broken, use 10.9.2", "2024-11-21T00:00:00.000Z"),
    "10.9.2": ("^18.17.0 || >=20.5.0", None, "2024-12-04T00:00:00.000Z"),
    "11.0.0": ("^20.17.0 || >=22.9.0", None, "2024-12-16T00:00:00.000Z"),
    "11.1.0-pre.0": ("^20.17.0 || >=22.9.0", None, "2025-01-08T00:00:00.000Z"),
}


def build_npm(out, registry, bad_integrity=False):
    base = os.path.join(out, registry)
    for cpu, vers in (("x64", ["22.12.0", "22.11.0", "20.18.0", "20.17.0"]), ("arm64", ["22.12.0", "20.18.0"])):
        if bad_integrity and cpu != "x64":
            continue
        if bad_integrity:
            vers = ["20.18.0"]
        name = f"node-linux-{cpu}"
        versions, time = {}, {"created": "2023-01-01T00:00:00.000Z", "modified": "2024-12-03T00:00:00.000Z"}
        for ver in vers:
            tgz, pkg = node_package_tgz(ver, cpu)
            write(os.path.join(base, name, "-", f"{name}-{ver}.tgz"), tgz)
            fields = {k: pkg[k] for k in ("description", "os", "cpu", "bin", "license")}
            versions[ver] = npm_version(registry, name, ver, tgz, fields, bad_integrity)
            time[ver] = NODE[ver][0] + "T00:00:00.000Z"
        doc = npm_packument(name, versions, "node", time)
        doc["dist-tags"] = {"latest": vers[0]}
        write(os.path.join(base, name, "index.json"), json.dumps(doc, indent=2) + "\n")
    if bad_integrity:
        return
    versions, time = {}, {"created": "2010-09-29T00:00:00.000Z", "modified": "2025-01-08T00:00:00.000Z"}
    for ver, (engines, deprecated, date) in NPM_VERSIONS.items():
        pkg = {"name": "npm", "version": ver, "description": "a package manager for JavaScript",
               "main": "./lib/cli.js", "bin": {"npm": "bin/npm-cli.js", "npx": "bin/npx-cli.js"},
               "engines": {"node": engines}, "license": "Artistic-2.0"}
        # npm pack may keep 0644 on the bin scripts: whoever installs sets exec bits.
        tgz = gz(tar([f("package/bin/npm-cli.js", version_script(ver)),
                      f("package/bin/npx-cli.js", version_script(ver)),
                      f("package/lib/cli.js", "module.exports = () => {}\n"),
                      f("package/package.json", json.dumps(pkg, indent=2) + "\n")], NPM_MTIME, dirs=False))
        write(os.path.join(base, "npm", "-", f"npm-{ver}.tgz"), tgz)
        fields = {k: pkg[k] for k in ("description", "main", "bin", "engines", "license")}
        if deprecated:
            fields["deprecated"] = deprecated
        versions[ver] = npm_version(registry, "npm", ver, tgz, fields)
        time[ver] = date
    doc = npm_packument("npm", versions, "a package manager for JavaScript", time)
    doc["dist-tags"] = {"latest": "11.0.0", "next": "11.1.0-pre.0"}
    write(os.path.join(base, "npm", "index.json"), json.dumps(doc, indent=2) + "\n")


# ---------------------------------------------------------------- go

GO = [("go1.24rc1", False, "2024-12-13T18:12:33Z"), ("go1.23.1", True, "2024-08-29T20:56:24Z"),
      ("go1.22.5", True, "2024-07-02T15:35:26Z"), ("go1.22.4", True, "2024-05-30T19:26:07Z")]


def go_tree(ver, date, arch):
    return [
        x("go/bin/go", f"""#!/bin/sh
case "$1" in
  version) echo "go version {ver} linux/{arch}" ;;
  env) case "$2" in GOROOT) cd "$(dirname "$0")/.." && pwd ;; GOVERSION) echo {ver} ;; GOARCH) echo {arch} ;; GOOS) echo linux ;; esac ;;
  *) echo "go stand-in {ver}" >&2; exit 2 ;;
esac
"""),
        x("go/bin/gofmt", "#!/bin/sh\nexit 0\n"),
        f("go/VERSION", f"{ver}\ntime {date}\n"),
        f("go/go.env", "GOPROXY=https://proxy.golang.org,direct\nGOSUMDB=sum.golang.org\nGOTOOLCHAIN=auto\n"),
        f("go/src/fmt/print.go", "package fmt\n"),
        x(f"go/pkg/tool/linux_{arch}/compile", f"#!/bin/sh\necho \"compile version {ver}\"\n"),
    ]


def build_go(out, name, bad_sum=False):
    base = os.path.join(out, name, "dl")
    listing = []
    for ver, stable, date in GO:
        files = []
        src = gz(tar([f("go/VERSION", f"{ver}\ntime {date}\n"), f("go/src/fmt/print.go", "package fmt\n")]))
        assets = [(f"{ver}.src.tar.gz", "", "", "source", src)]
        for arch in ("amd64", "arm64"):
            assets.append((f"{ver}.linux-{arch}.tar.gz", "linux", arch, "archive", gz(tar(go_tree(ver, date, arch)))))
        for filename, os_, arch, kind, data in assets:
            write(os.path.join(base, filename), data)
            digest = sha256(data)
            files.append({"filename": filename, "os": os_, "arch": arch, "version": ver,
                          "sha256": wrong_hex(digest) if bad_sum else digest, "size": len(data), "kind": kind})
        # Listed, never downloaded: an installer for another system.
        files.append({"filename": f"{ver}.darwin-arm64.pkg", "os": "darwin", "arch": "arm64", "version": ver,
                      "sha256": sha256(ver.encode()), "size": 1, "kind": "installer"})
        listing.append({"version": ver, "stable": stable, "files": files})
    write(os.path.join(base, "index.html"), json.dumps(listing, indent=1) + "\n")


# ---------------------------------------------------------------- rust

RUST = [("1.78.0", "2024-05-02", "9b00956e5 2024-04-29", "54d8815d0 2024-03-26"),
        ("1.79.0", "2024-06-13", "129f3b996 2024-06-10", "ffa9cf99a 2024-06-03"),
        ("1.80.1", "2024-08-08", "3f5fd8dd4 2024-08-06", "376290515 2024-07-16")]
TRIPLE = "x86_64-unknown-linux-gnu"

RUST_INSTALL = """#!/bin/sh
# Stand-in for rust-installer's install.sh: copies each component's
# manifest.in entries under --prefix (default /usr/local).
set -e
prefix=/usr/local
for a; do case "$a" in --prefix=*) prefix=${a#--prefix=} ;; esac; done
src=$(cd "$(dirname "$0")" && pwd)
for c in $(cat "$src/components"); do
  while IFS=: read -r kind path; do
    mkdir -p "$prefix/$(dirname "$path")"
    cp -R "$src/$c/$path" "$prefix/$(dirname "$path")/"
  done < "$src/$c/manifest.in"
done
echo "install: stand-in toolchain installed under $prefix"
"""


def rust_tree(ver, rustc_id, cargo_id):
    top = f"rust-{ver}-{TRIPLE}"
    std = f"rust-std-{TRIPLE}"
    rustc = f"""#!/bin/sh
case "$1" in
  --version|-V) echo "rustc {ver} ({rustc_id})" ;;
  -vV) printf 'rustc {ver} ({rustc_id})\\nbinary: rustc\\nhost: {TRIPLE}\\nrelease: {ver}\\n' ;;
  *) exit 1 ;;
esac
"""
    return [
        f(f"{top}/components", f"rustc\ncargo\n{std}\nrust-docs\n"),
        x(f"{top}/install.sh", RUST_INSTALL),
        f(f"{top}/version", f"{ver} ({rustc_id})\n"),
        f(f"{top}/rust-installer-version", "3\n"),
        f(f"{top}/rustc/manifest.in", "file:bin/rustc\nfile:bin/rustdoc\nfile:lib/librustc_driver-abc.so\n"),
        x(f"{top}/rustc/bin/rustc", rustc),
        x(f"{top}/rustc/bin/rustdoc", version_script(f"rustdoc {ver} ({rustc_id})")),
        f(f"{top}/rustc/lib/librustc_driver-abc.so", b"\x7fELF stand-in\n"),
        f(f"{top}/cargo/manifest.in", "file:bin/cargo\nfile:etc/bash_completion.d/cargo\n"),
        x(f"{top}/cargo/bin/cargo", version_script(f"cargo {ver} ({cargo_id})")),
        f(f"{top}/cargo/etc/bash_completion.d/cargo", "# cargo completion stand-in\n"),
        f(f"{top}/{std}/manifest.in", f"dir:lib/rustlib/{TRIPLE}/lib\n"),
        f(f"{top}/{std}/lib/rustlib/{TRIPLE}/lib/libstd-abc.rlib", b"!<arch>\nstand-in\n"),
        f(f"{top}/rust-docs/manifest.in", "dir:share/doc/rust/html\n"),
        f(f"{top}/rust-docs/share/doc/rust/html/index.html", "<html>stand-in</html>\n"),
    ]


def build_rust(keys, out, name, defect=None):
    base = os.path.join(out, name)
    lines = []
    for ver, date, rustc_id, cargo_id in RUST:
        lines.append(f"static.rust-lang.org/dist/{date}/channel-rust-{ver}.toml")
        if ver == "1.79.0":  # channels a version resolver must skip
            lines.append(f"static.rust-lang.org/dist/{date}/channel-rust-beta.toml")
            lines.append(f"static.rust-lang.org/dist/{date}/channel-rust-nightly.toml")
        archive = f"rust-{ver}-{TRIPLE}.tar.xz"
        data = xz(tar(rust_tree(ver, rustc_id, cargo_id)))
        digest = sha256(data)
        write(os.path.join(base, "dist", archive), data)
        write(os.path.join(base, "dist", archive + ".sha256"),
              f"{wrong_hex(digest) if defect == 'rust-badsum' else digest}  {archive}\n")
        write(os.path.join(base, "dist", archive + ".asc"),
              keys.detach(data, WRONG if defect == "rust-badsig" else GOOD, armor=True))
    write(os.path.join(base, "manifests.txt"), "\n".join(lines) + "\n")


# ---------------------------------------------------------------- python

PY_RELEASE = "20241016"
PYTHON = ["3.10.15", "3.11.10", "3.12.7"]


def python_tree(ver, triple=TRIPLE, stripped=False):
    mm = ".".join(ver.split(".")[:2])
    py = f"""#!/bin/sh
case "$1" in
  --version|-V) echo "Python {ver}" ;;
  -c) exit 0 ;;
  *) echo "python stand-in {ver}" >&2; exit 1 ;;
esac
"""
    pip = version_script(f"pip 24.2 from python/lib/python{mm}/site-packages/pip (python {mm})")
    return [
        x(f"python/bin/python{mm}", py),
        sym("python/bin/python3", f"python{mm}"),
        sym("python/bin/python", f"python{mm}"),
        x("python/bin/pip3", pip),
        x(f"python/bin/pip{mm}", pip),
        f(f"python/include/python{mm}/patchlevel.h", f"#define PY_VERSION \"{ver}\"\n"),
        f(f"python/include/python{mm}/Python.h", "#include \"patchlevel.h\"\n"),
        f(f"python/lib/python{mm}/os.py", "# stand-in\n"),
        f(f"python/lib/python{mm}/site-packages/README.txt", "This directory exists so that 3rd party packages can be installed here.\n"),
        f(f"python/lib/libpython{mm}.so.1.0", f"\x7fELF {triple} stand-in{'' if stripped else ' with symbols'}\n".encode()),
        f(f"python/share/man/man1/python{mm}.1", ".TH PYTHON 1\n"),
    ]


def build_python(out, name, bad_sum=False):
    base = os.path.join(out, name, PY_RELEASE)
    assets = {}
    for ver in PYTHON:
        stem = f"cpython-{ver}+{PY_RELEASE}"
        assets[f"{stem}-{TRIPLE}-install_only.tar.gz"] = gz(tar(python_tree(ver)))
        # Listed in SHA256SUMS, not published here (the full builds are large).
        assets[f"{stem}-{TRIPLE}-pgo+lto-full.tar.zst"] = None
    assets[f"cpython-3.12.7+{PY_RELEASE}-{TRIPLE}-install_only_stripped.tar.gz"] = gz(tar(python_tree("3.12.7", stripped=True)))
    assets[f"cpython-3.12.7+{PY_RELEASE}-aarch64-unknown-linux-gnu-install_only.tar.gz"] = gz(
        tar(python_tree("3.12.7", "aarch64-unknown-linux-gnu")))
    lines = []
    for filename in sorted(assets):
        data = assets[filename]
        digest = sha256(data if data is not None else filename.encode())
        lines.append(f"{wrong_hex(digest) if bad_sum else digest}  {filename}\n")
        if data is not None:
            write(os.path.join(base, filename), data)
    write(os.path.join(base, "SHA256SUMS"), "".join(lines))


# ---------------------------------------------------------------- java

# Temurin releases, newest first per feature release: (major, minor, security, build, date, architectures)
TEMURIN = [
    (21, 0, 6, 7, "2025-01-21", ["aarch64"]),  # no x64 build: never chosen for linux/amd64
    (21, 0, 5, 11, "2024-10-15", ["x64", "aarch64"]),
    (21, 0, 4, 7, "2024-07-16", ["x64"]),
    (21, 0, 2, 13, "2024-01-16", ["x64"]),  # a repository's pin (.sdkmanrc java=21.0.2-tem)
    (17, 0, 13, 11, "2024-10-15", ["x64"]),
]


def java_tree(ver, build, date):
    top = f"jdk-{ver}+{build}"
    java = f"""#!/bin/sh
case "$1" in
  -version) printf 'openjdk version "{ver}" {date} LTS\\nOpenJDK Runtime Environment Temurin-{ver}+{build} (build {ver}+{build}-LTS)\\n' >&2 ;;
  --version) printf 'openjdk {ver} {date} LTS\\n' ;;
  *) echo "java stand-in {ver}" >&2; exit 1 ;;
esac
"""
    return top, [
        x(f"{top}/bin/java", java),
        x(f"{top}/bin/javac", version_script(f"javac {ver}")),
        x(f"{top}/bin/jar", version_script(f"jar {ver}")),
        f(f"{top}/release", f'IMPLEMENTOR="Eclipse Adoptium"\nJAVA_RUNTIME_VERSION="{ver}+{build}-LTS"\n'
          f'JAVA_VERSION="{ver}"\nJAVA_VERSION_DATE="{date}"\nOS_NAME="Linux"\n'),
        f(f"{top}/lib/modules", b"\xca\xfe\xda\xda stand-in jimage\n"),
        f(f"{top}/lib/libjsig.so", b"\x7fELF stand-in\n"),
        sym(f"{top}/lib/server/libjsig.so", "../libjsig.so"),
        x(f"{top}/lib/jspawnhelper", "#!/bin/sh\nexit 0\n"),
        f(f"{top}/conf/security/java.security", "securerandom.source=file:/dev/random\n"),
        f(f"{top}/NOTICE", "Eclipse Temurin stand-in\n"),
    ]


def build_java(out, name, defect=None):
    base = os.path.join(out, name)
    majors = {}
    for major, minor, security, build, date, arches in TEMURIN:
        ver = f"{major}.{minor}.{security}"
        if defect and ver != "21.0.5":
            continue
        release_name = f"jdk-{ver}+{build}"
        top, tree = java_tree(ver, build, date)
        data = gz(tar(tree))
        binaries = []
        for arch in arches:
            pkg = f"OpenJDK{major}U-jdk_{arch}_linux_hotspot_{ver}_{build}.tar.gz"
            write(os.path.join(base, "binaries", release_name, pkg), data)
            link = f"@@BASE@@/{name}/binaries/jdk-{ver}%2B{build}/{pkg}"
            binaries.append({
                "architecture": arch, "download_count": 1, "heap_size": "normal", "image_type": "jdk",
                "jvm_impl": "hotspot", "os": "linux",
                "package": {"checksum": wrong_hex(sha256(data)) if defect == "java-badsum" else sha256(data),
                            "checksum_link": link + ".sha256.txt", "download_count": 1, "link": link,
                            "metadata_link": link + ".json", "name": pkg, "signature_link": link + ".sig",
                            "size": len(data) + (1 if defect == "java-badsize" else 0)},
                "project": "jdk", "scm_ref": f"{release_name}_adopt", "updated_at": f"{date}T12:00:00Z"})
        # Listed, never downloaded: a macOS JDK and a linux JRE of the same release.
        for os_, image in (("mac", "jdk"), ("linux", "jre")):
            pkg = f"OpenJDK{major}U-{image}_x64_{os_}_hotspot_{ver}_{build}.tar.gz"
            binaries.append({"architecture": "x64", "download_count": 1, "heap_size": "normal", "image_type": image,
                             "jvm_impl": "hotspot", "os": os_,
                             "package": {"checksum": sha256(pkg.encode()), "download_count": 1,
                                         "link": f"@@BASE@@/{name}/missing/{pkg}", "name": pkg, "size": 1},
                             "project": "jdk", "scm_ref": f"{release_name}_adopt", "updated_at": f"{date}T12:00:00Z"})
        majors.setdefault(major, []).append({
            "binaries": binaries, "download_count": 1, "id": sha256(release_name.encode())[:24],
            "release_link": f"https://github.com/adoptium/temurin{major}-binaries/releases/tag/jdk-{ver}%2B{build}",
            "release_name": release_name, "release_type": "ga", "timestamp": f"{date}T12:00:00Z",
            "updated_at": f"{date}T12:00:00Z", "vendor": "eclipse",
            "version_data": {"build": build, "major": major, "minor": minor, "openjdk_version": f"{ver}+{build}-LTS",
                             "security": security, "semver": f"{ver}+{build}.0.LTS"}})
    for major, releases in majors.items():
        write(os.path.join(base, "v3", "assets", "feature_releases", str(major), "ga", "index.json"),
              json.dumps(releases, indent=2) + "\n")
    avail = sorted(majors)
    write(os.path.join(base, "v3", "info", "available_releases", "index.json"), json.dumps({
        "available_lts_releases": avail, "available_releases": avail, "most_recent_feature_release": avail[-1],
        "most_recent_feature_version": avail[-1] + 1, "most_recent_lts": avail[-1], "tip_version": avail[-1] + 1},
        indent=2) + "\n")


# ---------------------------------------------------------------- dotnet

# channel -> releases, newest first: (release version, date, runtime, [(sdk version, rids)])
DOTNET = {
    "9.0": [("9.0.0", "2024-11-12", "9.0.0", [("9.0.100", ["linux-x64", "linux-arm64"])])],
    "8.0": [
        ("8.0.12", "2025-01-14", "8.0.12", [("8.0.405", ["linux-arm64", "osx-x64"])]),  # no linux-x64
        ("8.0.11", "2024-11-12", "8.0.11", [("8.0.404", ["linux-x64", "linux-musl-x64", "linux-arm64", "win-x64"]),
                                           ("8.0.307", ["linux-x64"])]),
        ("8.0.10", "2024-10-08", "8.0.10", [("8.0.403", ["linux-x64"])]),
        ("8.0.0-rc.2", "2023-10-10", "8.0.0-rc.2.23479.6", [("8.0.100-rc.2.23502.2", ["linux-x64"])]),
    ],
}
DOTNET_PUBLISHED = {"linux-x64", "linux-arm64"}  # the rids whose archives the fixture holds


def dotnet_tree(sdk, runtime, rid, host=True):
    # The real host finds its root from /proc/self/exe: through any link to it.
    dotnet = f"""#!/bin/sh
case "$1" in
  --version) echo {sdk} ;;
  --list-sdks) echo "{sdk} [$(dirname "$(readlink -f "$0")")/sdk]" ;;
  --list-runtimes) echo "Microsoft.NETCore.App {runtime} [$(dirname "$(readlink -f "$0")")/shared/Microsoft.NETCore.App]" ;;
  *) echo "dotnet stand-in {sdk}" >&2; exit 1 ;;
esac
"""
    # As Microsoft's tarballs are: no top directory, every name under "./".
    tree = [
        f("./LICENSE.txt", "MIT (stand-in)\n"),
        f("./ThirdPartyNotices.txt", "stand-in\n"),
        f(f"./sdk/{sdk}/dotnet.dll", b"MZ stand-in\n"),
        f(f"./sdk/{sdk}/.version", f"0123456789abcdef\n{sdk}\n{rid}\n{sdk}\n"),
        f(f"./shared/Microsoft.NETCore.App/{runtime}/libcoreclr.so", b"\x7fELF stand-in\n"),
        f(f"./shared/Microsoft.NETCore.App/{runtime}/Microsoft.NETCore.App.deps.json", "{}\n"),
        f(f"./host/fxr/{runtime}/libhostfxr.so", b"\x7fELF stand-in\n"),
        f(f"./packs/Microsoft.NETCore.App.Ref/{runtime}/data/FrameworkList.xml", "<FileList />\n"),
    ]
    if host:
        tree.append(x("./dotnet", dotnet))
    return tree


def build_dotnet(out, name, defect=None):
    base = os.path.join(out, name)
    index = []
    for channel, releases in DOTNET.items():
        official = "https://builds.dotnet.microsoft.com/dotnet"
        doc_releases = []
        for version, date, runtime, sdks in releases:
            sdk_docs = []
            for sdk, rids in sdks:
                files = []
                for rid in rids:
                    archive = f"dotnet-sdk-{sdk}-{rid}" + (".zip" if rid.startswith("win") else ".tar.gz")
                    data = None
                    if rid in DOTNET_PUBLISHED and not (defect and sdk != "8.0.404"):
                        data = gz(tar(dotnet_tree(sdk, runtime, rid, host=defect != "dotnet-nohost")))
                        write(os.path.join(base, "Sdk", sdk, archive), data)
                    digest = hashlib.sha512(data if data is not None else archive.encode()).hexdigest()
                    if defect == "dotnet-badsum":
                        digest = wrong_hex(digest)
                    files.append({"name": "dotnet-sdk-" + rid + archive[archive.index(rid) + len(rid):],
                                  "rid": rid, "url": f"{official}/Sdk/{sdk}/{archive}", "hash": digest})
                sdk_docs.append({"version": sdk, "version-display": sdk, "runtime-version": runtime,
                                 "vs-version": "", "csharp-version": "12.0", "files": files})
            doc_releases.append({"release-date": date, "release-version": version, "security": False,
                                 "release-notes": f"https://github.com/dotnet/core/blob/main/release-notes/{channel}/{version}/{version}.md",
                                 "runtime": {"version": runtime, "version-display": runtime, "files": []},
                                 "sdk": sdk_docs[0], "sdks": sdk_docs})
        latest = releases[0]
        write(os.path.join(base, "release-metadata", channel, "releases.json"), json.dumps({
            "channel-version": channel, "latest-release": latest[0], "latest-release-date": latest[1],
            "latest-runtime": latest[2], "latest-sdk": latest[3][0][0], "release-type": "lts" if channel == "8.0" else "sts",
            "support-phase": "active", "eol-date": "2026-11-10", "releases": doc_releases}, indent=2) + "\n")
        index.append({"channel-version": channel, "latest-release": latest[0], "latest-release-date": latest[1],
                      "security": False, "latest-runtime": latest[2], "latest-sdk": latest[3][0][0],
                      "product": ".NET", "support-phase": "active", "eol-date": "2026-11-10",
                      "release-type": "lts" if channel == "8.0" else "sts",
                      "releases.json": f"{official}/release-metadata/{channel}/releases.json"})
    write(os.path.join(base, "release-metadata", "releases-index.json"),
          json.dumps({"releases-index": index}, indent=2) + "\n")


# ---------------------------------------------------------------- main


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: toolchain_dist.py OUT")
    out = os.path.abspath(sys.argv[1])
    if os.path.exists(out):
        shutil.rmtree(out)
    os.makedirs(out)
    keys = Keys(out)
    try:
        build_node(keys, out, "node", set(NODE) - {NODE_PHANTOM},
                   lambda v: ["linux-x64", "linux-arm64"] if v == "20.18.0" else ["linux-x64"])
        for variant in ["node-badsig", "node-tampered-sums", "node-badsum", "node-missing", *NODE_HOSTILE]:
            build_node(keys, out, variant, {"20.18.0"}, lambda v: ["linux-x64"], variant)
        build_npm(out, "npm")
        build_npm(out, "npm-badintegrity", bad_integrity=True)
        build_go(out, "go")
        build_go(out, "go-badsum", bad_sum=True)
        build_rust(keys, out, "rust")
        build_rust(keys, out, "rust-badsig", "rust-badsig")
        build_rust(keys, out, "rust-badsum", "rust-badsum")
        build_python(out, "python")
        build_python(out, "python-badsum", bad_sum=True)
        build_java(out, "java")
        for variant in ("java-badsum", "java-badsize"):
            build_java(out, variant, variant)
        build_dotnet(out, "dotnet")
        for variant in ("dotnet-badsum", "dotnet-nohost"):
            build_dotnet(out, variant, variant)
    finally:
        keys.stop()
    # The generator's own digest: a reused tree (ServedToolchains) is one
    # this version of the script built.
    with open(os.path.abspath(__file__), "rb") as me:
        write(os.path.join(out, ".complete"), sha256(me.read()) + "\n")


if __name__ == "__main__":
    main()
