#!/usr/bin/env bash
# The distributed build the way a cluster runs it, on this one machine: N
# hosts made of Linux network namespaces (each with its own network stack,
# address and host name), joined by a bridge through veth links, the ranks
# started on them by mpiexec through an rsh agent that enters each host's
# namespace, and Open MPI's TCP transport only (shared memory off), so that
# every byte between ranks crosses a network stack.
#
#     scripts/hosts_check.sh [--hosts N] [--keep DIR] [--dtb PATH]
#
# 1. `dtb build --variant brazilian --pieces 5` on N hosts, one rank each,
#    must give the tables of the one-process build byte for byte. The same
#    ranks over shared memory are timed beside it, and the bytes each host
#    sent over its link are counted.
# 2. The same build again; once the manifest lists 10 materials the last
#    host's link is cut. The job must end within 60 s with an error naming
#    the rank and host lost; every table file left under its own name must
#    be whole and the manifest must list what was finished. Started again
#    on the hosts that remain, the build must skip what was finished and end
#    with the same tables.
#
# --keep DIR leaves phase 1's tables in DIR/brazilian. Needs root (network
# namespaces). Every namespace, link, file in /etc/netns and process the
# script made is removed when it ends, also on failure or Ctrl-C. Exit
# status: 0 if every check passed, 77 if this machine cannot make network
# namespaces, 1 otherwise.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
hosts=3 keep= dtb=$here/build/dtb
usage() { echo "usage: $0 [--hosts N] [--keep DIR] [--dtb PATH]" >&2; exit 2; }
while (( $# )); do
  case $1 in
    --hosts) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; hosts=$2; shift 2 ;;
    --keep) [[ -n ${2:-} ]] || usage; keep=$(realpath -m "$2"); shift 2 ;;
    --dtb) [[ -n ${2:-} ]] || usage; dtb=$(realpath -m "$2"); shift 2 ;;
    *) usage ;;
  esac
done
say() { echo "hosts_check: $*"; }
die() { echo "hosts_check: FAILED: $*" >&2; exit 1; }
(( hosts >= 2 && hosts <= 16 )) || { echo "hosts_check: --hosts must be 2 to 16 (one host is lost in phase 2)" >&2; exit 2; }
[[ -x $dtb ]] || { echo "hosts_check: $dtb not found: run scripts/build.sh first, or give --dtb" >&2; exit 1; }
for tool in ip unshare mpiexec; do
  command -v $tool >/dev/null || { echo "hosts_check: $tool not found: run scripts/setup.sh" >&2; exit 1; }
done
if [[ $(id -u) -ne 0 ]]; then
  echo "hosts_check: skipped: making network namespaces needs root" >&2
  exit 77
fi

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SOURCE_DATE_EPOCH=1767225600  # the tables' provenance date, so that builds compare byte for byte
source "$here/scripts/netns_hosts.sh"
work=$(mktemp -d /tmp/dtb-hosts.XXXXXX)
build_options=(build --variant brazilian --pieces 5 --team-positions 2000000)
rank_options=(--threads 1)  # the same on separate hosts as on one, where ranks would share its cores
pid=

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  netns_hosts_down
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the hosts --------------------------------------------------------------
status=0
netns_hosts_up "$hosts" "$work" 2>"$work/up.err" || status=$?
if (( status != 0 )); then
  echo "hosts_check: $(cat "$work/up.err")" >&2
  exit "$status"
fi
hostfile=$netns_hostfile
say "$hosts hosts h0..h$((hosts - 1)) at $netns_subnet.1-$hosts, bridge ${netns_prefix}br"

# same_tables A B: the Brazilian tables of A and B are the same (scripts/same_tables.sh); prints how many.
same_tables() { "$here/scripts/same_tables.sh" "$1" "$2" brazilian || die "the tables of $1 and $2 differ"; }

now() { date +%s.%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# --- the one-process build, for reference --------------------------------------
start=$(now)
"$dtb" "${build_options[@]}" --dir "$work/reference" --output quiet > /dev/null
say "one process: $(seconds "$start" "$(now)") s"

# --- phase 1: across the hosts over TCP, and the same ranks over shared memory -
declare -a before
for ((i = 0; i < hosts; ++i)); do before[i]=$(tx_bytes "$i"); done
start=$(now)
mpi_on_hosts "$hostfile" "$dtb" "${build_options[@]}" "${rank_options[@]}" --dir "$work/tcp" > "$work/tcp.out" 2>&1 \
  || { cat "$work/tcp.out" >&2; die "the build across $hosts hosts failed"; }
tcp_seconds=$(seconds "$start" "$(now)")
n=$(same_tables "$work/reference" "$work/tcp")
say "phase 1: $hosts hosts over TCP: $n tables, byte for byte those of one process, in $tcp_seconds s"
for ((i = 0; i < hosts; ++i)); do
  line=$(grep -E "^rank $i " "$work/tcp.out" | sed -E 's/.*sent ([0-9]+) bytes, received ([0-9]+) bytes.*/\1 \2/')
  say "  h$i (rank $i): $(( $(tx_bytes "$i") - before[i] )) bytes out of its link; the build counted ${line% *} sent, ${line#* } received"
done
start=$(now)
mpiexec -n "$hosts" --oversubscribe --mca btl self,vader "$dtb" "${build_options[@]}" "${rank_options[@]}" --dir "$work/shm" \
  > "$work/shm.out" 2>&1 || { cat "$work/shm.out" >&2; die "the build over shared memory failed"; }
say "  the same $hosts ranks on one host over shared memory: $(seconds "$start" "$(now)") s"
same_tables "$work/reference" "$work/shm" > /dev/null
if [[ -n $keep ]]; then
  mkdir -p "$keep"
  rm -rf "$keep/brazilian"
  cp -r "$work/tcp/brazilian" "$keep/brazilian"
  say "  phase 1's tables kept in $keep/brazilian"
fi

# --- phase 2: a host lost --------------------------------------------------------
lost=$((hosts - 1))
manifest=$work/lost/brazilian/manifest.json
listed() { [[ -f $manifest ]] && grep -c '"material"' "$manifest" || echo 0; }
mpi_on_hosts "$hostfile" "$dtb" "${build_options[@]}" "${rank_options[@]}" --dir "$work/lost" --rank-timeout 3 > "$work/lost.out" 2>&1 &
pid=$!
while (( $(listed) < 10 )); do
  kill -0 "$pid" 2>/dev/null || { cat "$work/lost.out" >&2; die "the build ended before the link was cut"; }
  sleep 0.2
done
ip link set "${netns_prefix}v$lost" down
cut=$(now)
say "phase 2: h$lost's link cut with $(listed) materials listed"
status=0
for ((t = 0; t < 600; ++t)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$pid" 2>/dev/null; then die "the job did not end within 120 s of the cut"; fi
wait "$pid" || status=$?
pid=
ended=$(seconds "$cut" "$(now)")
grep -F "dtb: error" "$work/lost.out" | sed 's/^/    /'
(( status != 0 )) || die "the job ended with status 0 after losing a host"
grep -q -F "rank $lost on host h$lost is lost" "$work/lost.out" \
  || { cat "$work/lost.out" >&2; die "no error named rank $lost on host h$lost"; }
awk -v s="$ended" 'BEGIN { exit !(s <= 60) }' || die "the job took $ended s to end after the cut (at most 60)"
say "  the job ended $ended s after the cut, status $status, naming rank $lost on host h$lost"
kept=$(listed)
(( kept >= 10 )) || die "the manifest lists $kept materials, fewer than the 10 finished before the cut"
for f in "$work/lost/brazilian"/*.wld "$work/lost/brazilian"/*.dtw; do
  [[ -e $f ]] || continue
  cmp -s "$f" "$work/reference/brazilian/${f##*/}" || die "${f##*/} was left under its own name but is not whole"
done
"$dtb" verify --variant brazilian --dir "$work/lost" > /dev/null || die "dtb verify refuses the tables left"
say "  the manifest lists $kept materials; every table file under its own name is whole"
# Every rank has ended, the cut-off one too (it lost rank 0, and ends itself).
for ((i = 0; i < hosts; ++i)); do
  left=$(ip netns pids "${netns_prefix}h$i" | xargs -r ps -o comm= -p | grep -c -x dtb || true)
  (( left == 0 )) || die "a dtb process is still running on h$i after the job ended"
done
say "  no rank left running on any host, h$lost's included"
# The lost host is down for good (its Open MPI daemon goes too), and the build resumes on the others.
ip netns pids "${netns_prefix}h$lost" | xargs -r kill -9
head -n "$lost" "$hostfile" > "$work/hostfile.remaining"
start=$(now)
mpi_on_hosts "$work/hostfile.remaining" "$dtb" "${build_options[@]}" "${rank_options[@]}" --dir "$work/lost" > "$work/resumed.out" 2>&1 \
  || { cat "$work/resumed.out" >&2; die "the build did not resume on the $lost remaining hosts"; }
skipped=$(sed -n -E 's/^built .*; ([0-9]+) already built;.*/\1/p' "$work/resumed.out")
(( skipped == kept )) || die "the resumed build skipped $skipped materials, not the $kept listed"
n=$(same_tables "$work/reference" "$work/lost")
say "  resumed on $lost hosts in $(seconds "$start" "$(now)") s: skipped $skipped, finished the rest; $n tables, byte for byte those of one process"
say "all checks passed"
