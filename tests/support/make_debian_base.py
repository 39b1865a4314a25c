#!/usr/bin/env python3
"""A small real Debian root filesystem tarball, made offline from the host's
own installed packages: apt, dpkg, a shell and the tools maintainer scripts
call, with everything they depend on (Depends and Pre-Depends, closed over the
host's dpkg database). Each package's files are copied as its
/var/lib/dpkg/info/<pkg>.list names them, with their modes and owners; the
dpkg database (status, info/, diversions, triggers) and an apt
extended_states (libraries auto-installed) describe exactly that set, and
ldconfig -r writes its ld.so.cache. `apt-get install` works in a chroot of it
(the overlay fidelity tests run one beside `strata build`).
  make_debian_base.py OUT.tar
"""
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

SEEDS = ["apt", "dpkg", "libc-bin", "dash", "bash", "coreutils", "tar", "diffutils", "findutils", "grep",
         "sed", "gzip", "base-files", "base-passwd", "debianutils"]
ADMIN = "/var/lib/dpkg"


def stanzas(path):
    with open(path, encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    for block in re.split(r"\n\s*\n", text):
        if block.strip():
            yield block.strip("\n") + "\n"


def field(block, name):
    m = re.search(r"^" + re.escape(name) + r":[ \t]*(.*(?:\n[ \t].*)*)", block, re.M | re.I)
    return m.group(1).replace("\n", " ") if m else ""


def main():
    out = sys.argv[1]
    installed = {}  # name -> stanza (native or all only)
    provides = {}
    for s in stanzas(ADMIN + "/status"):
        words = field(s, "Status").split()
        arch = field(s, "Architecture")
        if len(words) != 3 or words[2] != "installed" or arch not in ("amd64", "all"):
            continue
        name = field(s, "Package")
        installed[name] = s
        for p in field(s, "Provides").split(","):
            p = p.split("(")[0].strip()
            if p:
                provides.setdefault(p, name)
    chosen = set()
    todo = list(SEEDS)
    while todo:
        name = todo.pop()
        if name in chosen:
            continue
        chosen.add(name)
        s = installed[name]
        for rel in ",".join([field(s, "Pre-Depends"), field(s, "Depends")]).split(","):
            alts = [a.split("(")[0].strip().split(":")[0] for a in rel.split("|") if a.strip()]
            if not alts:
                continue
            pick = next((a for a in alts if a in chosen), None) or next((a for a in alts if a in installed), None)
            if pick is None:
                pick = next((provides[a] for a in alts if a in provides), None)
            if pick is None:
                sys.exit(f"make_debian_base: {name} needs {rel.strip()}, not installed on this host")
            todo.append(pick)

    root = tempfile.mkdtemp(prefix="strata-debian-base-")
    os.chmod(root, 0o755)
    try:
        info_names = {}
        for name in sorted(chosen):
            arch = field(installed[name], "Architecture")
            multi = field(installed[name], "Multi-Arch") == "same"
            stem = f"{name}:{arch}" if multi else name
            if not os.path.exists(f"{ADMIN}/info/{stem}.list"):
                stem = f"{name}:{arch}" if os.path.exists(f"{ADMIN}/info/{name}:{arch}.list") else name
            info_names[name] = stem
            with open(f"{ADMIN}/info/{stem}.list", encoding="utf-8", errors="surrogateescape") as f:
                paths = [line.rstrip("\n") for line in f if line.strip()]
            for p in paths:
                copy_path(p, root)
        # The dpkg database of exactly this set.
        admin = root + ADMIN
        os.makedirs(admin + "/info", exist_ok=True)
        for d in ("updates", "alternatives", "triggers"):
            os.makedirs(f"{admin}/{d}", exist_ok=True)
        os.makedirs(root + "/etc/alternatives", exist_ok=True)
        with open(admin + "/status", "w", encoding="utf-8", errors="surrogateescape") as f:
            for name in sorted(chosen):
                f.write(installed[name] + "\n")
        with open(admin + "/status-old", "w", encoding="utf-8", errors="surrogateescape") as f:
            for name in sorted(chosen):
                f.write(installed[name] + "\n")
        for fname in os.listdir(ADMIN + "/info"):
            stem = fname.rsplit(".", 1)[0]
            if stem in info_names.values():
                shutil.copy2(f"{ADMIN}/info/{fname}", f"{admin}/info/{fname}")
        with open(admin + "/info/format", "w") as f:
            f.write("1\n")
        with open(admin + "/arch", "w") as f:
            f.write("amd64\n")
        div = open(ADMIN + "/diversions").read().split("\n")
        with open(admin + "/diversions", "w") as f:
            for i in range(0, len(div) - 2, 3):
                if div[i + 2] in chosen:
                    f.write("\n".join(div[i:i + 3]) + "\n")
        for fname in os.listdir(ADMIN + "/triggers"):
            if fname in ("Lock", "Unincorp"):
                open(f"{admin}/triggers/{fname}", "w").close()
                continue
            with open(f"{ADMIN}/triggers/{fname}") as f:
                lines = [l for l in f if l.split()[-1].split("/")[0].split(":")[0] in chosen]
            if lines:
                with open(f"{admin}/triggers/{fname}", "w") as f:
                    f.writelines(lines)
        open(admin + "/triggers/Unincorp", "a").close()
        open(admin + "/lock", "w").close()
        # apt: libraries were pulled in automatically.
        os.makedirs(root + "/var/lib/apt/lists/partial", exist_ok=True)
        os.makedirs(root + "/var/cache/apt/archives/partial", exist_ok=True)
        with open(root + "/var/lib/apt/extended_states", "w") as f:
            for name in sorted(chosen, key=lambda n: (len(n), n)):
                if name.startswith("lib"):
                    f.write(f"Package: {name}\nArchitecture: amd64\nAuto-Installed: 1\n\n")
        # Accounts and the rest of a root filesystem.
        with open(root + "/etc/passwd", "w") as f:
            f.write("root:x:0:0:root:/root:/bin/bash\n_apt:x:42:65534::/nonexistent:/usr/sbin/nologin\n"
                    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
        with open(root + "/etc/group", "w") as f:
            f.write("root:x:0:\nnogroup:x:65534:\n")
        for d in ("tmp", "root", "dev", "proc", "var/log/apt", "var/tmp"):
            os.makedirs(f"{root}/{d}", exist_ok=True)
        os.chmod(root + "/tmp", 0o1777)
        os.chmod(root + "/var/tmp", 0o1777)
        os.chmod(root + "/root", 0o700)
        subprocess.run(["ldconfig", "-r", root], check=True)
        aux = root + "/var/cache/ldconfig/aux-cache"
        if os.path.exists(aux):
            os.remove(aux)
        subprocess.run(["tar", "--sort=name", "--numeric-owner", "-C", root, "-cf", out, "."], check=True)
    finally:
        shutil.rmtree(root)


def copy_path(p, root):
    if p in ("/", "/."):
        return
    try:
        st = os.lstat(p)
    except FileNotFoundError:
        return  # a diverted or removed file
    dest = root + p
    if os.path.lexists(dest) and not stat.S_ISDIR(st.st_mode):
        return
    parent = os.path.dirname(dest)
    if not os.path.isdir(parent):
        os.makedirs(parent, exist_ok=True)
    if stat.S_ISLNK(st.st_mode):
        if os.path.isdir(p):  # /lib -> usr/lib: the directory it names first
            for d in reversed([os.path.realpath(p)] + [x for x in [os.path.dirname(os.path.realpath(p))] if x != "/"]):
                copy_path(d, root)
        os.symlink(os.readlink(p), dest)
    elif stat.S_ISDIR(st.st_mode):
        if not os.path.isdir(dest):
            os.mkdir(dest)
            os.lchown(dest, st.st_uid, st.st_gid)
            os.chmod(dest, stat.S_IMODE(st.st_mode))
        return
    elif stat.S_ISREG(st.st_mode):
        shutil.copyfile(p, dest)
        os.lchown(dest, st.st_uid, st.st_gid)
        os.chmod(dest, stat.S_IMODE(st.st_mode))
        return
    else:
        return
    os.lchown(dest, st.st_uid, st.st_gid)


if __name__ == "__main__":
    main()
