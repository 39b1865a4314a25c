#!/usr/bin/env bash
# strata resolve vs apt-get install -s, same request, same archive, same
# dpkg status, in one run; then the cold case.
#   bench/resolve.sh [STRATA_BINARY]
# Env: BENCH_SOURCES (apt sources; default the host's debian.sources:
#      bookworm, bookworm-updates, bookworm-security, main, amd64),
#      BENCH_STATUS (dpkg status; default /var/lib/dpkg/status),
#      BENCH_REQUESTS (';'-separated; default "libvips-dev;build-essential;nodejs npm"),
#      BENCH_RUNS (warm runs per tool, median reported; default 5),
#      BENCH_WORK (scratch directory, reused when given).
# Warm means: strata's STRATA_HOME already holds the verified indexes (and
# their parsed form), apt's private state already holds the lists and its
# binary caches (pkgcache.bin/srcpkgcache.bin, enabled explicitly because
# Debian container images switch them off). Both read the same sources: apt
# in a private Dir (tests/support/apt_simulate.sh's options), strata via
# --sources. Absolute times on shared machines are noisy; the ratio is the
# number to read.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd); src=$(cd "$here/.." && pwd)
strata=${1:-${STRATA_BINARY:-$src/build/src/cli/strata}}
sources=${BENCH_SOURCES:-/etc/apt/sources.list.d/debian.sources}
status=${BENCH_STATUS:-/var/lib/dpkg/status}
runs=${BENCH_RUNS:-5}
IFS=';' read -r -a requests <<< "${BENCH_REQUESTS:-libvips-dev;build-essential;nodejs npm}"
work=${BENCH_WORK:-$(mktemp -d /tmp/strata-bench.XXXXXX)}
mkdir -p "$work"
state=$work/apt
mkdir -p "$state"/{etc/apt/apt.conf.d,etc/apt/preferences.d,etc/apt/sources.list.d} \
  "$state"/var/lib/apt/lists/partial "$state"/var/cache/apt/archives/partial
case "$sources" in
  *.sources) cp "$sources" "$state/etc/apt/sources.list.d/main.sources"; : > "$state/etc/apt/sources.list" ;;
  *) cp "$sources" "$state/etc/apt/sources.list" ;;
esac
apt_opts=(-o "Dir=$state" -o "Dir::State::status=$status" -o "Dir::Etc::Parts=$state/etc/apt/apt.conf.d"
  -o "Dir::Cache::pkgcache=pkgcache.bin" -o "Dir::Cache::srcpkgcache=srcpkgcache.bin"
  -o Dir::Bin::dpkg=/bin/false -o APT::Architecture=amd64 -o APT::Architectures=amd64
  -o Debug::NoLocking=1 -o APT::Sandbox::User=root -o Acquire::Languages=none -q)
export STRATA_HOME=$work/strata-home

echo "== cold: fetch + verify + parse ($(grep -h '^Suites:' "$sources" | tr '\n' ' ')) for amd64, then resolve"
rm -rf "$STRATA_HOME" "$state/var/lib/apt/lists" "$state"/var/cache/apt/*.bin
mkdir -p "$state/var/lib/apt/lists/partial"
/usr/bin/time -v "$strata" resolve --sources "$sources" --status "$status" --platform linux/amd64 "${requests[0]}" \
  > /dev/null 2> "$work/strata-cold.txt"
/usr/bin/time -v apt-get "${apt_opts[@]}" update > /dev/null 2> "$work/apt-cold.txt"
cold() { awk -F': ' '/Elapsed \(wall clock\)/{w=$2} /Maximum resident/{r=$2} END{printf "wall %s, peak RSS %.0f MiB", w, r/1024}' "$1"; }
echo "strata resolve (cold, empty STRATA_HOME): $(cold "$work/strata-cold.txt")"
echo "apt-get update (cold, for reference):     $(cold "$work/apt-cold.txt")"
du -sh "$STRATA_HOME/indexes" | awk '{print "strata index cache: " $1}'

echo "== warm: median of $runs runs per tool"
python3 - "$strata" "$sources" "$status" "$runs" "${requests[@]}" -- "${apt_opts[@]}" <<'PY'
import statistics, subprocess, sys, time
args = sys.argv[1:]
sep = args.index("--")
strata, sources, status, runs, *requests = args[:sep]
apt_opts = args[sep + 1:]
runs = int(runs)
def timed(cmd):
    ts = []
    out = None
    for _ in range(runs + 1):  # the first run only warms caches
        t = time.perf_counter()
        r = subprocess.run(cmd, capture_output=True, text=True)
        ts.append(time.perf_counter() - t)
        if r.returncode != 0:
            sys.exit(f"failed: {' '.join(cmd)}\n{r.stderr}")
        out = r.stdout
    return statistics.median(ts[1:]), out
print(f"{'request':28} {'strata s':>9} {'apt-get s':>9} {'ratio':>6}  same result")
for req in requests:
    pkgs = req.split()
    s_t, s_out = timed([strata, "resolve", "--sources", sources, "--status", status, "--platform", "linux/amd64", *pkgs])
    a_t, a_out = timed(["apt-get", *apt_opts, "install", "-s", "--no-install-recommends", *pkgs])
    inst = sorted(l.split()[1].split(":")[0] for l in a_out.splitlines() if l.startswith("Inst "))
    same = inst == sorted(l.split()[0] for l in s_out.splitlines())
    print(f"{req:28} {s_t:9.3f} {a_t:9.3f} {a_t / s_t:5.1f}x  {'yes' if same else 'NO'} ({len(inst)} packages)")
PY
