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
prefix=dtb$$            # names of this run's namespaces, links and bridge
subnet=10.231.77        # inside the namespaces only
export DTB_NETNS_PREFIX=$prefix
work=$(mktemp -d /tmp/dtb-hosts.XXXXXX)
build_options=(build --variant brazilian --pieces 5 --team-positions 2000000)
rank_options=(--threads 1)  # the same on separate hosts as on one, where ranks would share its cores
pid=

cleanup() {
  local status=$?
  trap - EXIT INT TERM
  [[ -n $pid ]] && kill -9 "$pid" 2>/dev/null
  for ((i = 0; i < hosts; ++i)); do
    ip netns pids "${prefix}h$i" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  for ((i = 0; i < hosts; ++i)); do
    ip link del "${prefix}v$i" 2>/dev/null || true  # both ends of the pair
    ip netns del "${prefix}h$i" 2>/dev/null || true
    rm -rf "/etc/netns/${prefix}h$i"
  done
  ip link del "${prefix}br" 2>/dev/null || true
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- the hosts --------------------------------------------------------------
if ! ip link add "${prefix}br" type bridge 2>/dev/null; then
  echo "hosts_check: skipped: this machine cannot make a network bridge (ip link add type bridge)" >&2
  exit 77
fi
ip link set "${prefix}br" up
hostfile=$work/hostfile
: > "$hostfile"
for ((i = 0; i < hosts; ++i)); do
  ns=${prefix}h$i
  if ! ip netns add "$ns"; then
    (( i == 0 )) || die "cannot make network namespace $ns"
    echo "hosts_check: skipped: this machine cannot make network namespaces (ip netns add)" >&2
    exit 77
  fi
  ip link add "${prefix}v$i" type veth peer name eth0 netns "$ns"
  ip link set "${prefix}v$i" master "${prefix}br" up
  ip -n "$ns" addr add "$subnet.$((i + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  echo "h$i slots=1" >> "$hostfile"
done
# Each host resolves the others' names (ip netns exec puts /etc/netns/NS/hosts over /etc/hosts).
for ((i = 0; i < hosts; ++i)); do
  mkdir -p "/etc/netns/${prefix}h$i"
  { echo "127.0.0.1 localhost"; for ((j = 0; j < hosts; ++j)); do echo "$subnet.$((j + 1)) h$j"; done; } \
    > "/etc/netns/${prefix}h$i/hosts"
done
# The rsh agent: mpiexec calls it as `agent HOST COMMAND...` to start its
# daemon on HOST; it runs COMMAND in HOST's namespace under HOST's name.
agent=$work/netns-rsh
cat > "$agent" <<'EOF'
#!/bin/sh
host=$1; shift
exec ip netns exec "${DTB_NETNS_PREFIX}$host" unshare --uts sh -c "hostname $host; exec $*"
EOF
chmod +x "$agent"
say "$hosts hosts h0..h$((hosts - 1)) at $subnet.1-$hosts, bridge ${prefix}br"

# mpiexec on host h0 (rank 0's), over the hosts of hostfile $1 with TCP
# only, the ranks bound to no core: every host is this machine, where
# binding each host's one rank to "its" first core would put them all on
# the same core. The daemons' keepalives let mpiexec notice a host it cannot reach
# 9 to 19 s after it went (Open MPI's default: 8 to 13 minutes); dtb's own
# heartbeats (--rank-timeout 3) name the rank lost before that.
mpi_on_hosts() {
  local file=$1 ranks; shift
  ranks=$(wc -l < "$file")
  ip netns exec "${prefix}h0" unshare --uts sh -c 'hostname h0; exec "$@"' sh \
    mpiexec --hostfile "$file" -n "$ranks" --bind-to none --mca plm_rsh_agent "$agent" \
    --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include "$subnet.0/24" --mca oob_tcp_if_include "$subnet.0/24" \
    --mca oob_tcp_keepalive_time 10 --mca oob_tcp_keepalive_intvl 3 --mca oob_tcp_keepalive_probes 3 \
    "$@"
}
tx_bytes() { ip netns exec "${prefix}h$1" cat /sys/class/net/eth0/statistics/tx_bytes; }

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
ip link set "${prefix}v$lost" down
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
  left=$(ip netns pids "${prefix}h$i" | xargs -r ps -o comm= -p | grep -c -x dtb || true)
  (( left == 0 )) || die "a dtb process is still running on h$i after the job ended"
done
say "  no rank left running on any host, h$lost's included"
# The lost host is down for good (its Open MPI daemon goes too), and the build resumes on the others.
ip netns pids "${prefix}h$lost" | xargs -r kill -9
head -n "$lost" "$hostfile" > "$work/hostfile.remaining"
start=$(now)
mpi_on_hosts "$work/hostfile.remaining" "$dtb" "${build_options[@]}" "${rank_options[@]}" --dir "$work/lost" > "$work/resumed.out" 2>&1 \
  || { cat "$work/resumed.out" >&2; die "the build did not resume on the $lost remaining hosts"; }
skipped=$(sed -n -E 's/^built .*; ([0-9]+) already built;.*/\1/p' "$work/resumed.out")
(( skipped == kept )) || die "the resumed build skipped $skipped materials, not the $kept listed"
n=$(same_tables "$work/reference" "$work/lost")
say "  resumed on $lost hosts in $(seconds "$start" "$(now)") s: skipped $skipped, finished the rest; $n tables, byte for byte those of one process"
say "all checks passed"
