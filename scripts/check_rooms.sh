#!/usr/bin/env bash
# The dependency rule of docs/ARCHITECTURE.md, checked: every `#include "…"`
# in src/ must point at its own room or at one the rule allows, and nothing
# in the project (sources, tests, docs, scripts) may point into a tree
# outside it. Exits 1 naming each offending line. Run by ctest (room_rules).
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$root"

# room → the rooms it may include (besides itself). A room is a folder under
# src/ (src/layer/<room> for the Debian side, src/contract/<room> for the
# contract and the decision built on it).
declare -A allowed=(
  [util]=""
  [oci]="util"
  [layer/debian]="util oci"
  [layer/apt]="util oci layer/debian"
  [layer/deb]="util oci layer/debian"
  [layer/effects]="util oci layer/debian layer/deb"
  [layer/overlay]="util oci layer/debian layer/deb layer/effects"
  [layer/scratch]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay"
  [layer/import]="util oci layer/debian layer/apt layer/toolchain layer/sbom"
  [layer/bundle]="util oci layer/debian layer/apt layer/toolchain"
  [layer/toolchain]="util oci layer/debian layer/apt"
  [layer/sbom]="util oci layer/debian layer/apt layer/toolchain"
  [layer/build]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/sbom"
  [layer/cache]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/build layer/toolchain"
  [contract/model]="util oci"
  [contract/knowledge]="util oci contract/model"
  [contract/scan]="util oci contract/model contract/knowledge"
  [contract/egress]="util oci contract/model contract/scan"
  [contract/image]="util oci layer/debian"
  [contract/route]="util oci layer/debian layer/apt layer/build layer/toolchain contract/model contract/knowledge contract/scan contract/egress contract/image"
  [contract/preflight]="util oci layer/debian contract/model contract/egress contract/image contract/route"
  [contract/provision]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/build layer/cache layer/toolchain layer/sbom contract/model contract/knowledge contract/scan contract/egress contract/image contract/route contract/preflight"
  [cli]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/import layer/bundle layer/sbom layer/build layer/cache layer/toolchain contract/model contract/knowledge contract/scan contract/egress contract/image contract/route contract/preflight contract/provision"
)

# One pass over every quoted include in src/ (file:line:#include "path"); a
# path's room is its first folder, or its first two under layer/ and contract/
# when there are more below (src/layer/x.hpp belongs to the room "layer").
rules=$(for room in "${!allowed[@]}"; do echo "$room=${allowed[$room]}"; done)
bad=0
sources() { find src \( -name '*.cpp' -o -name '*.hpp' -o -name '*.in' \) "$@" | sort -z; }
{ sources -print0 | xargs -0 grep -Hn -o '^#include "[^"]*"' || true
  sources -printf '%p:0:\0' | tr '\0' '\n'; } > "${TMPDIR:-/tmp}/rooms.$$"   # file:0: names every file
if ! awk -v rules="$rules" '
  function room_of(p,   n, parts) {
    n = split(p, parts, "/")
    if ((parts[1] == "layer" || parts[1] == "contract") && n >= 3) return parts[1] "/" parts[2]
    return parts[1]
  }
  BEGIN {
    n = split(rules, lines, "\n")
    for (i = 1; i <= n; i++) {
      eq = index(lines[i], "="); room = substr(lines[i], 1, eq - 1)
      known[room] = 1; ok[room] = " " substr(lines[i], eq + 1) " "
    }
  }
  {
    first = index($0, ":"); file = substr($0, 1, first - 1); rest = substr($0, first + 1)
    second = index(rest, ":"); line = substr(rest, 1, second - 1)
    inc = substr(rest, second + 1); sub(/^#include "/, "", inc); sub(/"$/, "", inc)
    from = room_of(substr(file, 5))
    if (!(from in known)) {
      if (!(file in told)) print file ": room \047" from "\047 is not in the dependency rule (scripts/check_rooms.sh)"
      told[file] = 1; bad = 1; next
    }
    if (inc == "") next
    to = room_of(inc)
    if (to == from || index(ok[from], " " to " ")) next
    print file ":" line ": includes \"" inc "\": room " from " may not depend on " to; bad = 1
  }
  END { exit bad }' "${TMPDIR:-/tmp}/rooms.$$"; then
  bad=1
fi
rm -f "${TMPDIR:-/tmp}/rooms.$$"

# Nothing may point outside the project: someone who clones it alone must
# have everything it refers to. Design notes are docs/ARCHITECTURE.md and
# docs/CLI.md; research notes kept beside the project are not part of it.
outside='\.\./shared/|shared/(design|reference)/|(^|[^/[:alnum:]_])(ARCHITECTURE|CLI|QUALITY)\.md|debian-to-layers|oci-specs-and-registry|registry-clients\.md|environment-detection\.md|anchors-apko|cache-gc-prewarm|style-anchors'
if grep -rnE "$outside" src tests scripts bench README.md CMakeLists.txt docs | grep -v '^scripts/check_rooms.sh:'; then
  echo "the lines above point outside the project; point at docs/ instead"; bad=1
fi
exit $bad
