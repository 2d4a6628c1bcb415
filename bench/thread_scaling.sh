#!/usr/bin/env bash
# How `dtb build` scales with threads on this machine (docs/scaling.md,
# "Threads on one node"): a set built from nothing at each thread count, and
# per count the wall time, the processor time (user and system), positions a
# second, processor time a position, the efficiency against the lowest count
# and the peak memory; with --rules the same for the .rul tables. Every run's
# tables are compared byte for byte with the first run's (SOURCE_DATE_EPOCH
# fixed). The first line describes the machine.
#
#     bench/thread_scaling.sh [--threads "1 2 4 8 16"] [--rules] [--profile DIR] VARIANT PIECES [-- dtb build options]
#     bench/thread_scaling.sh --threads "4 8 16" american 6
#     DTB=.device/dtb bench/thread_scaling.sh --threads "4 16" --rules american 6 -- --memory 64
#
# --profile DIR also writes DIR/profile-T.json for each count T (dtb build
# --profile; bench/studies/thread_model reads them). Needs bash and awk only, so it
# runs beside a copied dtb (DTB=path; its libraries by LD_LIBRARY_PATH).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dtb=${DTB:-$here/build/dtb}
counts="" rules=() profile_dir=""
while [[ $# -gt 0 ]]; do
  case $1 in
    --threads) counts=$2; shift 2 ;;
    --rules) rules=(--rules); shift ;;
    --profile) profile_dir=$2; shift 2 ;;
    --) break ;;
    -*) echo "thread_scaling.sh: unknown option $1 (--threads \"1 2 4\", --rules, --profile DIR)" >&2; exit 2 ;;
    *) break ;;
  esac
done
if [[ $# -lt 2 ]]; then
  echo "usage: $0 [--threads \"1 2 4 8\"] [--rules] [--profile DIR] VARIANT PIECES [-- dtb build options]" >&2
  exit 2
fi
variant=$1 pieces=$2
shift 2
[[ ${1:-} == -- ]] && shift
cores=$(nproc)
if [[ -z $counts ]]; then
  counts="1"
  for ((t = 2; t <= cores; t *= 2)); do counts+=" $t"; done
fi
[[ -n $profile_dir ]] && mkdir -p "$profile_dir"
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT
export SOURCE_DATE_EPOCH=1767225600

# The machine: processor, cores (and sockets, threads a core), caches, NUMA nodes, memory.
machine() {
  local model sockets per_core caches="" nodes memory
  model=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
  sockets=$(grep 'physical id' /proc/cpuinfo | sort -u | wc -l)
  per_core=$(awk -F: '/siblings/ {s=$2} /cpu cores/ {c=$2} END {if (c > 0) print s / c; else print 1}' /proc/cpuinfo)
  for index in /sys/devices/system/cpu/cpu0/cache/index*; do
    [[ -r $index/level ]] || continue
    [[ $(cat "$index/type") == Instruction ]] && continue
    caches+=" L$(cat "$index/level") $(cat "$index/size")"
  done
  nodes=$(find /sys/devices/system/node -maxdepth 1 -name 'node[0-9]*' 2>/dev/null | wc -l)
  memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576))
  echo "machine: $model; cores: $cores, sockets: ${sockets:-1}, threads a core: $per_core; caches of a core:${caches:- unknown}; NUMA nodes: ${nodes:-1}; memory: $memory GiB"
}
machine
echo "build: $variant up to $pieces ${rules[*]} $*; dtb: $dtb"

# field LINE PATTERN: the number after PATTERN in LINE.
field() { sed -nE "s/.*$2 ([0-9.]+).*/\1/p" <<<"$1"; }

printf "%-8s %-6s %9s %11s %11s %12s %14s %10s %10s\n" part threads "wall s" "processor s" "M pos/s" \
  "proc ns/pos" "efficiency" "peak MiB" tables
declare -A low_rate
low=""
for t in $counts; do
  out=$work/t$t
  rm -rf "$out"
  options=(build --variant "$variant" --pieces "$pieces" --dir "$out" --threads "$t" --output quiet ${rules[@]+"${rules[@]}"})
  [[ -n $profile_dir ]] && options+=(--profile "$profile_dir/profile-$t.json")
  summary=$("$dtb" "${options[@]}" "$@")
  same="first"
  if [[ -n $low ]]; then
    if n=$("$here/scripts/same_tables.sh" "$work/t$low" "$out" "$variant" 2>&1); then
      same="same $n"
    else
      same="DIFFER: $n"
    fi
  fi
  peak=$(field "$(grep '^built' <<<"$summary")" "peak memory")
  for part in plain rules; do
    if [[ $part == plain ]]; then
      line=$(grep '^built' <<<"$summary")
      positions=$(sed -nE 's/^built [0-9]+ materials \(([0-9]+) positions\).*/\1/p' <<<"$line")
    else
      [[ ${#rules[@]} -gt 0 ]] || continue
      line=$(grep '^rule tables' <<<"$summary")
      positions=$(sed -nE 's/^rule tables: built [0-9]+ \(([0-9]+) positions\).*/\1/p' <<<"$line")
    fi
    wall=$(sed -nE 's/.* in ([0-9.]+) s,.*/\1/p' <<<"$line")
    processor=$(field "$line" "processor")
    read -r rate per_position < <(awk -v p="$positions" -v w="$wall" -v c="$processor" \
      'BEGIN {printf "%.2f %.1f\n", p / w / 1e6, c / p * 1e9}')
    [[ -z $low ]] && low_rate[$part]=$rate
    efficiency=$(awk -v r="$rate" -v l="${low_rate[$part]}" -v t="$t" -v lt="${low:-$t}" \
      'BEGIN {printf "%.1f%%", 100 * (r / l) / (t / lt)}')
    printf "%-8s %-6s %9s %11s %11s %12s %14s %10s %10s\n" "$part" "$t" "$wall" "$processor" "$rate" \
      "$per_position" "$efficiency" "$peak" "$same"
  done
  [[ -z $low ]] && low=$t
  [[ $t != "$low" ]] && rm -rf "$out"
done
