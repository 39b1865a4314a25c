#!/usr/bin/env bash
# strata resolve vs apt-get install -s, and strata build as users type it,
# in one run, warm, on the same base, the same archive and the same request.
#   bench/resolve.sh [STRATA_BINARY]
#
#   apt     : `apt-get install -s --no-install-recommends PKG…` in a chroot of
#             the base (mmdebstrap minbase), its lists fetched and its binary
#             caches (pkgcache.bin, srcpkgcache.bin) built by a first run
#   resolve : `strata resolve --base oci:…:base PKG…`, $STRATA_HOME warm (the
#             indexes and their by-name form, the base's dpkg state, the
#             InRelease confirmed within --index-max-age: no network)
#   revalid : the same with --index-max-age 0 (every InRelease revalidated by
#             a conditional GET, the sources in parallel)
#   build   : `strata build --base oci:…:base PKG… --dest D` without a lock,
#             every fragment cached, a new destination each run (no cache
#             hit): resolve + fetch check + the overlay from cached fragments
# Both tools read the same sources (BENCH_SOURCES, copied into the chroot).
# The answers are compared package for package (name and version). Each
# table line carries the load average when it was measured: the machine may
# be shared, and the ratio is the number to read.
#
# Env: BENCH_WORK (default /var/tmp/strata-bench-resolve; reused: base.tar,
#      the chroot, the homes), BENCH_SOURCES (default the host's
#      debian.sources), BENCH_REQUESTS (';'-separated; default
#      "build-essential;libvips-dev"), BENCH_RUNS (timed runs per measure,
#      median reported; default 5), BENCH_BUILD (the request built; default
#      build-essential), BENCH_BUILD_RUNS (default 3), SUITE.
# Needs root, mmdebstrap, python3 and the network (the first run).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/.." && pwd)
strata=$(readlink -f "${1:-${STRATA_BINARY:-$src/build/src/cli/strata}}")
sources=${BENCH_SOURCES:-/etc/apt/sources.list.d/debian.sources}
runs=${BENCH_RUNS:-5}
build_runs=${BENCH_BUILD_RUNS:-3}
suite=${SUITE:-bookworm}
requests=${BENCH_REQUESTS:-build-essential;libvips-dev}
build_request=${BENCH_BUILD:-build-essential}
work=${BENCH_WORK:-/var/tmp/strata-bench-resolve}
mkdir -p "$work"
export STRATA_HOME=$work/home
root=$work/root

# The base, as an image and as a chroot (not timed).
[ -f "$work/base.tar" ] || mmdebstrap --quiet --variant=minbase --mode=root "$suite" "$work/base.tar"
[ -f "$work/img/index.json" ] ||
  SOURCE_DATE_EPOCH=1700000000 "$strata" -q import "$work/base.tar" --dest "oci:$work/img:base" --platform linux/amd64 > /dev/null
if [ ! -x "$root/usr/bin/apt-get" ]; then
  rm -rf "$root" && mkdir -p "$root" && tar -C "$root" -xf "$work/base.tar"
fi
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/* "$root/etc/apt/apt.conf.d/docker-clean"
case "$sources" in
  *.sources) cp "$sources" "$root/etc/apt/sources.list.d/bench.sources" ;;
  *) cp "$sources" "$root/etc/apt/sources.list" ;;
esac
cp "$sources" "$work/$(basename "$sources")"
[ -n "$(ls "$root/var/lib/apt/lists" 2>/dev/null | grep Packages || true)" ] || chroot "$root" apt-get -qq update

python3 - "$strata" "$work" "$root" "$work/$(basename "$sources")" "$runs" "$build_runs" "$requests" "$build_request" <<'PY'
import os, shutil, statistics, subprocess, sys, time
strata, work, root, sources, runs, build_runs, requests, build_request = sys.argv[1:]
runs, build_runs = int(runs), int(build_runs)
base = f"oci:{work}/img:base"

def load():
    return open("/proc/loadavg").read().split()[0]

def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
    return r

def timed(cmd, n, before=None):
    ts, out, err = [], None, None
    for i in range(n + 1):  # the first run only warms caches
        if before: before(i)
        t = time.perf_counter()
        r = run(cmd(i) if callable(cmd) else cmd)
        ts.append(time.perf_counter() - t)
        out, err = r.stdout, r.stderr
    return statistics.median(ts[1:]), min(ts[1:]), max(ts[1:]), out, err

def apt_answer(out):
    # "Inst NAME (VERSION Debian:12.x/stable [amd64])" / "Inst NAME [OLD] (VERSION …)"
    got = set()
    for l in out.splitlines():
        if l.startswith("Inst "):
            w = l.split()
            got.add((w[1].split(":")[0], l.split("(", 1)[1].split()[0]))
    return got

def strata_answer(out):
    return {(l.split()[0], l.split()[1]) for l in out.splitlines() if l.strip()}

print(f"{run([strata, '--version']).stdout.strip()}; {os.cpu_count()} cores; runs: median of {runs} "
      f"(builds: {build_runs}) after one warm-up")
print(f"{'request':16} {'what':8} {'median s':>9} {'min':>7} {'max':>7} {'load':>5}  vs apt  same answer")
for req in requests.split(";"):
    pkgs = req.split()
    apt = ["chroot", root, "apt-get", "install", "-s", "-q", "--no-install-recommends", *pkgs]
    res = [strata, "resolve", "--base", base, "--sources", sources, "--platform", "linux/amd64", *pkgs]
    a_med, a_min, a_max, a_out, _ = timed(apt, runs); a_load = load()
    want = apt_answer(a_out)
    print(f"{req:16} {'apt':8} {a_med:9.3f} {a_min:7.3f} {a_max:7.3f} {a_load:>5}")
    for what, cmd in (("resolve", res), ("revalid", res + ["--index-max-age", "0"])):
        med, lo, hi, out, err = timed(cmd, runs); l = load()
        same = strata_answer(out) == want
        print(f"{req:16} {what:8} {med:9.3f} {lo:7.3f} {hi:7.3f} {l:>5} {a_med / med:6.1f}x  "
              f"{'yes' if same else 'NO'} ({len(want)} packages)")
        if what == "resolve" and err.strip():
            print(f"  note: a warm resolve printed: {err.strip()}")
    if req != build_request:
        continue
    # As typed, no lock: a new destination each run; the warm-up run also
    # converts every fragment.
    dest = lambda i: f"{work}/dest-{i}"
    def fresh(i):
        shutil.rmtree(dest(i), ignore_errors=True)
    build = lambda i: [strata, "-q", "--jobs", "2", "build", "--base", base, "--sources", sources,
                       "--platform", "linux/amd64", *pkgs, "--dest", f"oci:{dest(i)}:x"]
    med, lo, hi, _, _ = timed(build, build_runs, fresh); l = load()
    print(f"{req:16} {'build':8} {med:9.3f} {lo:7.3f} {hi:7.3f} {l:>5}  (warm, no lock; goal <= 0.3 s)")
    for i in range(build_runs + 1):
        fresh(i)
PY
