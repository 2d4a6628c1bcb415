#!/usr/bin/env bash
# The same build run as one process and on MPI ranks (docs/scaling.md): one
# process with 1 and with all threads, and under mpiexec 1 rank of 1 thread,
# 1 rank of all threads, and one rank per core of 1 thread each. Prints the
# seconds, the positions per second, the processor seconds of all ranks, and
# the per-rank lines of each distributed run (materials alone and in teams,
# seconds working, waiting for teams and idle, bytes sent and received).
#
#     bench/scaling_bench.sh VARIANT PIECES [extra dtb build options...]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dtb=${DTB:-$here/build/dtb}
variant=$1 pieces=$2
shift 2
cores=$(nproc)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT
echo "machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $cores cores, $(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1048576)) GiB"
echo "build: $variant up to $pieces pieces $*"
summary() { grep -E "^built" | sed -E 's/.* in ([0-9.]+) s, ([0-9.]+) M positions\/s.*peak memory ([0-9]+) MiB/\1 s  \2 M positions\/s  peak \3 MiB/'; }
run() {  # run LABEL THREADS COMMAND...
  local label=$1 threads=$2
  shift 2
  rm -rf "$work/tables"
  local out
  out=$("$@" build --variant "$variant" --pieces "$pieces" --dir "$work/tables" --threads "$threads" --output log \
          ${extra[@]+"${extra[@]}"})
  local cpu=""
  if grep -q "^rank " <<<"$out"; then
    cpu=$(grep "^rank " <<<"$out" | sed -E 's/.*processor ([0-9.]+) s.*/\1/' | paste -sd+ | bc)
    cpu="  processor $cpu s"
  fi
  printf "%-22s %s%s\n" "$label" "$(summary <<<"$out")" "$cpu"
  grep "^rank " <<<"$out" | sed 's/^/    /' || true
}
extra=("$@")
run "1 process, 1 thread" 1 "$dtb"
run "1 process, $cores threads" "$cores" "$dtb"
run "1 rank x 1 thread" 1 mpiexec -n 1 --bind-to none "$dtb"
run "1 rank x $cores threads" "$cores" mpiexec -n 1 --bind-to none "$dtb"
run "$cores ranks x 1 thread" 1 mpiexec -n "$cores" --bind-to none "$dtb"
