#!/usr/bin/env bash
# Runtime floors before and after a change to the contract, on real
# repositories: each repository is scanned by both binaries
# (`strata contract scan DIR --format json`) and every tool's floor is printed
# side by side with the new version to provision and its pin and conflicts,
# then how many floors changed, rose and fell. A floor that rose needs a reason
# (docs/contract.md, "Runtime versions").
# Usage: bench/contract_floors.sh OLD_STRATA NEW_STRATA REPO_DIR...
set -euo pipefail
old=${1:?usage: bench/contract_floors.sh OLD_STRATA NEW_STRATA REPO_DIR...}
new=${2:?usage: bench/contract_floors.sh OLD_STRATA NEW_STRATA REPO_DIR...}
shift 2
command -v jq >/dev/null || { echo "contract_floors: jq is missing (apt-get install jq)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
floors() {  # BINARY DIR → "tool<TAB>floor<TAB>provision<TAB>pin<TAB>conflicts" per tool
  "$1" contract scan "$2" --format json 2>/dev/null | jq -r '.runtime_floors | to_entries[] |
    [.key, (.value.floor // "-"), (.value.provision.range // "-"), (.value.pin // "-"),
     ((.value.conflicts // []) | length | tostring)] | @tsv'
}
printf '%-16s %-8s %-10s %-10s %-24s %-18s %s\n' repository tool "old floor" "new floor" "new provision" "new pin" "conflicts old→new"
changed=0 rose=0 fell=0 total=0
for dir in "$@"; do
  name=$(basename "$dir")
  floors "$old" "$dir" > "$work/old"
  floors "$new" "$dir" > "$work/new"
  for tool in $(cut -f1 "$work/old" "$work/new" | sort -u); do
    o=$(awk -F'\t' -v t="$tool" '$1 == t' "$work/old")
    n=$(awk -F'\t' -v t="$tool" '$1 == t' "$work/new")
    of=$(cut -f2 <<<"${o:-x	absent}") nf=$(cut -f2 <<<"${n:-x	absent}")
    np=$(cut -f3 <<<"${n:-x	-	-}") pin=$(cut -f4 <<<"${n:-x	-	-	-}")
    oc=$(cut -f5 <<<"${o:-x	-	-	-	0}") nc=$(cut -f5 <<<"${n:-x	-	-	-	0}")
    total=$((total + 1))
    mark=""
    if [ "$of" != "$nf" ]; then
      changed=$((changed + 1))
      if [ "$of" != "-" ] && [ "$of" != absent ] && [ "$nf" != "-" ] && [ "$nf" != absent ] &&
         [ "$(printf '%s\n%s\n' "$of" "$nf" | sort -V | tail -1)" = "$nf" ]; then rose=$((rose + 1)); mark=" (rose)"
      else fell=$((fell + 1)); mark=" (fell or left)"; fi
    fi
    printf '%-16s %-8s %-10s %-10s %-24s %-18s %s\n' "$name" "$tool" "$of" "$nf$mark" "$np" "$pin" "$oc→$nc"
  done
done
echo "contract_floors: $total tool entries, $changed floors changed ($rose rose, $fell fell or left)"
