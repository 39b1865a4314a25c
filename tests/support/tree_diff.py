#!/usr/bin/env python3
"""Compares two root filesystem trees path by path, as a careful reviewer
would: each path's type, permission bits (setuid/setgid/sticky included),
owner and group, symlink target and content (sha256); modification times
are not compared. Prints one line per difference and the count of paths
compared; exits 1 when anything differs.
  tree_diff.py A B [--exclude GLOB]...
GLOB is matched against the path relative to the root ("var/log/apt/*",
"var/lib/apt/lists"); a path matching it, and everything below it, is skipped
on both sides.
"""
import fnmatch
import hashlib
import os
import stat
import sys


def walk(root, excludes):
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        keep = []
        for name in sorted(dirnames + filenames):
            rel = name if rel_dir == "." else rel_dir + "/" + name
            if any(fnmatch.fnmatchcase(rel, g) for g in excludes):
                continue
            full = os.path.join(dirpath, name)
            st = os.lstat(full)
            if stat.S_ISDIR(st.st_mode) and name in dirnames:
                keep.append(name)
            out[rel] = describe(full, st)
        dirnames[:] = [d for d in dirnames if d in keep]
    return out


def describe(full, st):
    mode = stat.S_IMODE(st.st_mode)
    owner = f"{st.st_uid}:{st.st_gid}"
    if stat.S_ISLNK(st.st_mode):
        return ("symlink", None, owner, os.readlink(full))
    if stat.S_ISDIR(st.st_mode):
        return ("directory", oct(mode), owner, None)
    if stat.S_ISREG(st.st_mode):
        h = hashlib.sha256()
        with open(full, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
        return ("file", oct(mode), owner, h.hexdigest())
    return ("special", oct(mode), owner, f"{os.major(st.st_rdev)},{os.minor(st.st_rdev)}")


def main():
    args = sys.argv[1:]
    excludes = []
    roots = []
    while args:
        a = args.pop(0)
        if a == "--exclude":
            excludes.append(args.pop(0))
        else:
            roots.append(a)
    if len(roots) != 2:
        sys.exit("usage: tree_diff.py A B [--exclude GLOB]...")
    a, b = (walk(r, excludes) for r in roots)
    fields = ("type", "mode", "owner", "target/content")
    diffs = 0
    for path in sorted(set(a) | set(b)):
        if path not in a:
            print(f"{path}: only in {roots[1]}")
        elif path not in b:
            print(f"{path}: only in {roots[0]}")
        elif a[path] != b[path]:
            what = [f"{n} {x} vs {y}" for n, x, y in zip(fields, a[path], b[path]) if x != y]
            print(f"{path}: " + "; ".join(what))
        else:
            continue
        diffs += 1
    print(f"{len(set(a) | set(b))} paths compared, {diffs} differ")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
