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
# decision built on the contract; src/contract/ itself is the scanner).
declare -A allowed=(
  [util]=""
  [oci]="util"
  [layer/debian]="util oci"
  [layer/apt]="util oci layer/debian"
  [layer/deb]="util oci layer/debian"
  [layer/effects]="util oci layer/debian layer/deb"
  [layer/overlay]="util oci layer/debian layer/deb layer/effects"
  [layer/scratch]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay"
  [layer/import]="util oci"
  [layer/bundle]="util oci layer/debian layer/apt layer/toolchain"
  [layer/toolchain]="util oci layer/debian layer/apt"
  [layer/build]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch"
  [layer/cache]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/build layer/toolchain"
  [contract]="util oci"
  [contract/egress]="util oci contract"
  [contract/image]="util oci layer/debian"
  [contract/route]="util oci layer/debian layer/apt layer/build layer/toolchain contract contract/egress contract/image"
  [contract/preflight]="util oci layer/debian contract contract/egress contract/image contract/route"
  [contract/provision]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/build layer/cache layer/toolchain contract contract/egress contract/image contract/route contract/preflight"
  [cli]="util oci layer/debian layer/apt layer/deb layer/effects layer/overlay layer/scratch layer/import layer/bundle layer/build layer/cache layer/toolchain contract contract/egress contract/image contract/route contract/preflight contract/provision"
)

room_of() {  # src-relative path → room
  case "$1" in
    layer/*/*) echo "${1%%/*}/$(echo "$1" | cut -d/ -f2)" ;;
    layer/*) echo "layer" ;;
    contract/*/*) echo "${1%%/*}/$(echo "$1" | cut -d/ -f2)" ;;
    *) echo "${1%%/*}" ;;
  esac
}

bad=0
while IFS= read -r -d '' file; do
  rel=${file#src/}
  from=$(room_of "$rel")
  if [ -z "${allowed[$from]+x}" ]; then
    echo "$file: room '$from' is not in the dependency rule (scripts/check_rooms.sh)"; bad=1; continue
  fi
  while IFS=: read -r line inc; do
    to=$(room_of "$inc")
    [ "$to" = "$from" ] && continue
    case " ${allowed[$from]} " in *" $to "*) continue ;; esac
    echo "$file:$line: includes \"$inc\": room $from may not depend on $to"; bad=1
  done < <(grep -n -o '^#include "[^"]*"' "$file" | sed 's/#include "\(.*\)"/\1/')
done < <(find src -name '*.cpp' -o -name '*.hpp' -o -name '*.in' | sort | tr '\n' '\0')

# Nothing may point outside the project: someone who clones it alone must
# have everything it refers to. Design notes are docs/ARCHITECTURE.md and
# docs/CLI.md; research notes kept beside the project are not part of it.
outside='\.\./shared/|shared/(design|reference)/|(^|[^/[:alnum:]_])(ARCHITECTURE|CLI|QUALITY)\.md|debian-to-layers|oci-specs-and-registry|registry-clients\.md|environment-detection\.md|anchors-apko|cache-gc-prewarm|style-anchors'
if grep -rnE "$outside" src tests scripts bench README.md CMakeLists.txt docs | grep -v '^scripts/check_rooms.sh:'; then
  echo "the lines above point outside the project; point at docs/ instead"; bad=1
fi
exit $bad
