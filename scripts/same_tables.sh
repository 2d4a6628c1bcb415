#!/usr/bin/env bash
# Whether two builds hold the same tables of a variant: every .wld, .dtw and
# .rul file of A/VARIANT is in B/VARIANT byte for byte, and B has no others.
#
#     scripts/same_tables.sh A B VARIANT
#
# Prints the number of table files compared; exits 1 naming the first
# difference (used by hosts_check.sh, slurm_check.sh, bench/solver_bench.sh
# and bench/thread_scaling.sh).
set -euo pipefail
if [[ $# -ne 3 ]]; then
  echo "usage: $0 A B VARIANT" >&2
  exit 2
fi
a=$1/$3 b=$2/$3
n=0
for f in "$a"/*.wld "$a"/*.dtw "$a"/*.rul; do
  [[ -e $f ]] || continue
  cmp -s "$f" "$b/${f##*/}" || { echo "${f##*/} differs between $1 and $2" >&2; exit 1; }
  n=$((n + 1))
done
others=$(find "$b" -maxdepth 1 \( -name '*.wld' -o -name '*.dtw' -o -name '*.rul' \) 2>/dev/null | wc -l)
if (( n == 0 || n != others )); then
  echo "$1 holds $n $3 table files, $2 $others" >&2
  exit 1
fi
echo "$n"
