#!/usr/bin/env python3
"""Fixtures and checks for the security tier (tests/security/run.sh).

Builds hostile inputs (tarballs, layouts edited by hand) and reads strata's
outputs the way a consumer would (PyYAML for policies, sha256 for blobs).
Every subcommand prints what the caller needs on stdout; errors exit 1.
"""
import gzip
import hashlib
import io
import json
import os
import random
import re
import sys
import tarfile
import zlib


def add_file(t, name, data, mode=0o644):
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = mode
    info.mtime = 1700000000
    t.addfile(info, io.BytesIO(data))


def add_dir(t, name):
    info = tarfile.TarInfo(name)
    info.type = tarfile.DIRTYPE
    info.mode = 0o755
    info.mtime = 1700000000
    t.addfile(info)


def base_entries(t):
    for d in ("etc", "usr", "usr/bin", "var", "var/lib", "var/lib/dpkg", "opt"):
        add_dir(t, d)
    add_file(t, "etc/os-release", b'ID=debian\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\n')


def stanza(name, version="1.0"):
    return (f"Package: {name}\nStatus: install ok installed\nPriority: optional\nSection: misc\n"
            f"Installed-Size: 1\nMaintainer: t <t@example.org>\nArchitecture: all\nVersion: {version}\n"
            f"Description: {name}\n").encode()


def cmd_rootfs(out, kind, mib="8"):
    """A root filesystem tarball of one kind: big (an uncompressible MiB-sized file),
    java (an unterminated JAVA_VERSION over 60 KB), dpkg-hardlink, dpkg-big."""
    with tarfile.open(out, "w", format=tarfile.GNU_FORMAT) as t:
        base_entries(t)
        if kind == "big":
            add_file(t, "opt/payload.bin", random.Random(20261204).randbytes(int(mib) * 1024 * 1024))
        elif kind == "java":
            for d in ("opt/java", "opt/java/openjdk"):
                add_dir(t, d)
            add_file(t, "opt/java/openjdk/release", b'IMPLEMENTOR="x"\nJAVA_VERSION="' + b"1" * 70000 + b"\n")
        elif kind == "dpkg-hardlink":
            # The status file is a hard link to an earlier entry, as some image
            # builders (and layer squashers) write it.
            add_file(t, "var/lib/dpkg/status-old", stanza("base-helper", "9.0"))
            info = tarfile.TarInfo("var/lib/dpkg/status")
            info.type = tarfile.LNKTYPE
            info.linkname = "var/lib/dpkg/status-old"
            info.mtime = 1700000000
            t.addfile(info)
        elif kind == "dpkg-big":
            body = bytearray()
            i = 0
            while len(body) < 9 * 1024 * 1024:
                body += stanza(f"filler-{i:06d}") + b"\n"
                i += 1
            body += stanza("base-helper", "9.0")
            add_file(t, "var/lib/dpkg/status", bytes(body))
        else:
            sys.exit(f"unknown rootfs kind {kind}")


def cmd_gzbomb(out, gib, member):
    """A .tar.gz of one member of GIB GiB of zeros: the tar header, then the same
    64 MiB gzip member repeated (a multi-member gzip stream is one valid stream)."""
    size = int(gib) * 1024 * 1024 * 1024
    chunk = 64 * 1024 * 1024
    info = tarfile.TarInfo(member)
    info.size = size
    info.mtime = 1700000000
    header = info.tobuf(format=tarfile.GNU_FORMAT)
    zero_member = gzip.compress(b"\0" * chunk, compresslevel=9, mtime=0)
    with open(out, "wb") as f:
        f.write(gzip.compress(header, mtime=0))
        for _ in range(size // chunk):
            f.write(zero_member)
        f.write(gzip.compress(b"\0" * 1024, mtime=0))  # end of archive


def walk_strings(node, keys, out):
    if isinstance(node, dict):
        for k, v in node.items():
            if k in keys and isinstance(v, str):
                out.add(v)
            walk_strings(v, keys, out)
    elif isinstance(node, list):
        for v in node:
            walk_strings(v, keys, out)


def cmd_hosts(fmt, path):
    """The hosts a rendered policy grants, one per line, read as its consumer reads it."""
    data = open(path, "rb").read()
    text = data.decode("utf-8")
    hosts = set()
    if fmt in ("openshell", "cilium"):
        import yaml  # PyYAML: YAML 1.1, where U+0085, U+2028 and U+2029 are line breaks
        try:
            doc = yaml.safe_load(text)
        except yaml.YAMLError as e:
            sys.exit("does not parse as YAML 1.1: " + " ".join(str(e).split())[:200])
        walk_strings(doc, {"host", "matchName", "matchPattern"} if fmt == "cilium" else {"host"}, hosts)
    elif fmt == "json":
        for h in json.loads(text).get("hosts", []):
            hosts.add(h["host"])
    elif fmt == "squid":
        # squid reads lines split at "\n" only; any directive line counts.
        for line in text.split("\n"):
            s = line.strip()
            if not s or s.startswith("#"):
                continue
            words = s.split()
            if words[0] == "acl" and len(words) > 3 and words[2] in ("dstdomain", "dstdom_regex"):
                vals = [w for w in words[3:] if w != "-i"]
                for v in vals:
                    m = re.fullmatch(r"\^\[\^\.\]\+\\\.(.*)\$", v)
                    hosts.add("*." + m.group(1).replace("\\.", ".") if m else v)
            elif words[0] in ("acl", "http_access", "ssl_bump", "http_port", "https_port"):
                if words[0] == "http_access" and words[1] == "allow" and "all" in words[2:]:
                    hosts.add("<allow all>")
                continue
            else:
                hosts.add("<directive " + words[0][:40] + ">")
    for h in sorted(hosts):
        print(h)


def cmd_verify_layout(d, *tags):
    """Every blob's sha256 matches its name, index.json names only blobs present and
    every TAG; prints DIGEST SIZE per blob. Exit 1 on a mismatch, naming it."""
    bad = []
    root = os.path.join(d, "blobs", "sha256")
    for name in sorted(os.listdir(root)):
        p = os.path.join(root, name)
        if not os.path.isfile(p):
            continue
        if not re.fullmatch(r"[0-9a-f]{64}", name):
            continue  # ingest files and the like are not blobs
        h = hashlib.sha256()
        try:
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except FileNotFoundError:
            continue  # removed since it was listed
        if h.hexdigest() != name:
            bad.append(f"corrupt: blob {name} hashes to {h.hexdigest()} ({os.path.getsize(p)} bytes)")
        print(f"sha256:{name} {os.path.getsize(p)}")
    try:
        idx = json.load(open(os.path.join(d, "index.json")))
    except (OSError, ValueError) as e:
        print(f"{d}/index.json does not read: {e}", file=sys.stderr)
        sys.exit(1)
    for m in idx.get("manifests", []):
        dig = m["digest"].split(":", 1)[1]
        if not os.path.isfile(os.path.join(root, dig)):
            bad.append(f"index.json names {m['digest']}, which is missing")
    have = {m.get("annotations", {}).get("org.opencontainers.image.ref.name") for m in idx.get("manifests", [])}
    for t in tags:
        if t not in have:
            bad.append(f"lost: tag {t} missing from index.json")
    if bad:
        print("\n".join(bad), file=sys.stderr)
        sys.exit(1)


def read_index(d):
    return json.load(open(os.path.join(d, "index.json")))


def write_index(d, idx):
    with open(os.path.join(d, "index.json"), "w") as f:
        json.dump(idx, f)


def blob_path(d, digest):
    return os.path.join(d, "blobs", "sha256", digest.split(":", 1)[1])


def put_blob(d, data):
    dig = "sha256:" + hashlib.sha256(data).hexdigest()
    with open(blob_path(d, dig), "wb") as f:
        f.write(data)
    return dig


def find_tag(idx, tag):
    for m in idx["manifests"]:
        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") == tag:
            return m
    sys.exit(f"no tag {tag}")


def tag_manifest(d, raw, media_type, tag):
    dig = put_blob(d, raw)
    idx = read_index(d)
    idx["manifests"] = [m for m in idx["manifests"]
                        if m.get("annotations", {}).get("org.opencontainers.image.ref.name") != tag]
    idx["manifests"].append({"mediaType": media_type, "digest": dig, "size": len(raw),
                             "annotations": {"org.opencontainers.image.ref.name": tag}})
    write_index(d, idx)
    return dig


def cmd_has_tag(d, tag):
    """Exit 0 when the layout's index.json names TAG ("*": any tag at all)."""
    try:
        idx = read_index(d)
    except (OSError, ValueError):
        sys.exit(1)
    names = [m.get("annotations", {}).get("org.opencontainers.image.ref.name") for m in idx.get("manifests", [])]
    sys.exit(0 if (names if tag == "*" else tag in names) else 1)


def cmd_notes(path):
    """Exit 0 when a json policy has notes."""
    sys.exit(0 if json.load(open(path)).get("notes") else 1)


def cmd_manifest_blobs(d, tag):
    """The manifest, config and layer digests of a tagged image manifest."""
    m = find_tag(read_index(d), tag)
    man = json.load(open(blob_path(d, m["digest"])))
    print(m["digest"])
    print(man["config"]["digest"])
    for l in man["layers"]:
        print(l["digest"])


def cmd_annotate(d, tag, new_tag, annotations_json):
    """Retag a copy of TAG's manifest as NEW_TAG with extra annotations."""
    m = find_tag(read_index(d), tag)
    man = json.load(open(blob_path(d, m["digest"])))
    man.setdefault("annotations", {}).update(json.loads(annotations_json))
    raw = json.dumps(man).encode()
    print(tag_manifest(d, raw, m["mediaType"], new_tag))


def cmd_forge_use(d, overlay_tag, first, last):
    """A use record (docs/format/overlay.md "Last use") for OVERLAY_TAG with the given times."""
    m = find_tag(read_index(d), overlay_tag)
    empty = put_blob(d, b"{}")
    desc = {"mediaType": "application/vnd.oci.empty.v1+json", "digest": empty, "size": 2}
    man = {"schemaVersion": 2, "mediaType": "application/vnd.oci.image.manifest.v1+json",
           "artifactType": "application/vnd.strata.overlay.use.v1", "config": desc, "layers": [desc],
           "subject": {"mediaType": m["mediaType"], "digest": m["digest"], "size": m["size"]},
           "annotations": {"dev.strata.overlay.last-used": str(last), "dev.strata.overlay.first-used": str(first)}}
    print(tag_manifest(d, json.dumps(man).encode(), man["mediaType"], overlay_tag + ".used"))


def cmd_nested(d, depth):
    """An image layout whose tag `deep` is DEPTH indexes nested around one image
    tagged `img` (which must exist)."""
    m = find_tag(read_index(d), "img")
    child = {"mediaType": m["mediaType"], "digest": m["digest"], "size": m["size"]}
    for _ in range(int(depth)):
        raw = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
                          "manifests": [child]}).encode()
        child = {"mediaType": "application/vnd.oci.image.index.v1+json", "digest": put_blob(d, raw), "size": len(raw)}
    tag_manifest(d, raw, child["mediaType"], "deep")


def cmd_lock(out, listener, hostile_uri, hostile_file):
    """A lock whose first package comes from LISTENER (a local server that must see no
    request) and whose second package's URL is HOSTILE_URI/HOSTILE_FILE."""
    body = f"""format: 1
platform: "linux/amd64"
base:
  reference: ""
  digest: ""
request:
  - "app"
  - "evil"
sources:
  - uri: "{listener}"
    suite: "bookworm"
    components: ["main"]
    release-sha256: "{'a' * 64}"
    date: "2023-11-14T22:13:20Z"
    fingerprint: "ABCD"
  - uri: "{hostile_uri}"
    suite: "bookworm"
    components: ["main"]
    release-sha256: "{'a' * 64}"
    date: "2023-11-14T22:13:20Z"
    fingerprint: "ABCD"
packages:
  - name: "app"
    version: "1.0"
    architecture: "all"
    filename: "pool/main/a/app_1.0_all.deb"
    size: 5
    sha256: "{'c' * 64}"
    source: 0
  - name: "evil"
    version: "1.0"
    architecture: "all"
    filename: "{hostile_file}"
    size: 1000
    sha256: "{'b' * 64}"
    source: 1
"""
    open(out, "w").write(body)


def cmd_laughs(out, kind):
    """A billion-laughs YAML document: 10 levels of 10 aliases each (10^9 strings
    once expanded), defined inside keys the file may have, so that it is the
    expansion, not an unknown key, that the reader meets."""
    levels = ['&a0 "lol lol lol lol lol lol lol lol lol lol"']
    for i in range(1, 10):
        levels.append(f"&a{i} [{', '.join([f'*a{i - 1}'] * 10)}]")
    bomb = "[" + ", ".join(levels) + "]"
    if kind == "project":
        body = (f"egress:\n  - host: ok.example.com\n    reason: {bomb}\n  - host: *a9\n"
                f"toolchain:\n  required_commands: [*a9, *a9, *a9]\n")
    else:
        body = f"cache: oci:cache\noverlays:\n  - base: oci:base:img\n    packages: {bomb}\n  - base: *a9\n    packages: *a9\n"
    open(out, "w").write(body)


def cmd_controls(path):
    """Exit 1 (naming them) when PATH holds control characters other than \\n and \\t."""
    data = open(path, "rb").read()
    bad = sorted({b for b in data if (b < 0x20 and b not in (0x0a, 0x09)) or b == 0x7f})
    if bad:
        print("raw control characters " + " ".join(f"0x{b:02x}" for b in bad))
        sys.exit(1)


COMMANDS = {"rootfs": cmd_rootfs, "gzbomb": cmd_gzbomb, "hosts": cmd_hosts, "verify-layout": cmd_verify_layout,
            "has-tag": cmd_has_tag, "notes": cmd_notes,
            "manifest-blobs": cmd_manifest_blobs, "annotate": cmd_annotate, "forge-use": cmd_forge_use,
            "nested": cmd_nested, "lock": cmd_lock, "laughs": cmd_laughs, "controls": cmd_controls}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__ + "\nsubcommands: " + " ".join(COMMANDS))
    COMMANDS[sys.argv[1]](*sys.argv[2:])
