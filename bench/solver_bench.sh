#!/usr/bin/env bash
# The solver end to end (docs/history.md, "Solver speed"): `dtb build` of
# whole sets from nothing (solve, compress, write), with the default options
# unless given, and for each the seconds, million positions a second (both
# sides to move), peak resident memory and bytes written, on the machine it
# ran on. With DTB_BEFORE=path/to/another/dtb, each set is built by both
# binaries in turn and the tables compared byte for byte (SOURCE_DATE_EPOCH
# fixed), so that a change to the solver is timed and checked at once.
#
#     bench/solver_bench.sh [VARIANT:PIECES ...] [-- dtb build options]
#     bench/solver_bench.sh american:6 brazilian:6
#     DTB_BEFORE=/tmp/old/dtb bench/solver_bench.sh american:5 -- --threads 2
#
# Default sets: american:6 brazilian:6. Each build takes minutes.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dtb=${DTB:-$here/build/dtb}
sets=()
while [[ $# -gt 0 && $1 != -- ]]; do sets+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
[[ ${#sets[@]} -gt 0 ]] || sets=(american:6 brazilian:6)
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1767225600

echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) cores"
# run NAME BINARY VARIANT PIECES DIR [options]: one build, its summary line.
run() {
  local name=$1 binary=$2 variant=$3 pieces=$4 dir=$5
  shift 5
  rm -rf "$dir"
  local line
  line=$("$binary" build --variant "$variant" --pieces "$pieces" --dir "$dir" --output quiet "$@" | tail -1)
  echo "$name $variant up to $pieces: $line"
}
for set in "${sets[@]}"; do
  variant=${set%%:*} pieces=${set##*:}
  run after "$dtb" "$variant" "$pieces" "$work/after" "$@"
  if [[ -n ${DTB_BEFORE:-} ]]; then
    run before "$DTB_BEFORE" "$variant" "$pieces" "$work/before" "$@"
    if n=$("$here/scripts/same_tables.sh" "$work/before" "$work/after" "$variant"); then
      echo "$variant up to $pieces: the same $n table files"
    else
      echo "$variant up to $pieces: the tables differ"
    fi
  fi
done
