# Hosts of Linux network namespaces on this one machine, for running dtb's
# ranks the way a cluster runs them: each host has its own network stack,
# address and host name, the hosts are joined by a bridge through veth
# links, and mpiexec starts the ranks on them through an rsh agent that
# enters each host's namespace, with Open MPI's TCP transport only (shared
# memory off), so that every byte between ranks crosses a network stack.
# Sourced (not run) by scripts/hosts_check.sh and bench/team_matrix.sh.
#
#   netns_hosts_up N DIR   makes hosts h0..h(N-1), one slot each, writes
#                          DIR/hostfile and the agent DIR/netns-rsh; returns
#                          77 (having said why) where this machine cannot
#                          make namespaces or a bridge
#   netns_hosts_down       removes every namespace, link, /etc/netns file
#                          and process netns_hosts_up made (call it from the
#                          caller's EXIT trap)
#   mpi_on_hosts FILE CMD...  mpiexec on h0 over the hosts of hostfile FILE
#   tx_bytes I             bytes sent out of host I's link so far
#
# Needs root. The names start with netns_prefix (default dtb$$); the
# addresses are in netns_subnet.0/24, inside the namespaces only.
netns_prefix=${netns_prefix:-dtb$$}
netns_subnet=${netns_subnet:-10.231.77}
netns_count=0
export DTB_NETNS_PREFIX=$netns_prefix

netns_hosts_up() {
  local n=$1 dir=$2 i j ns
  if ! ip link add "${netns_prefix}br" type bridge 2>/dev/null; then
    echo "skipped: this machine cannot make a network bridge (ip link add type bridge)" >&2
    return 77
  fi
  ip link set "${netns_prefix}br" up || return 1
  netns_hostfile=$dir/hostfile
  : > "$netns_hostfile"
  for ((i = 0; i < n; ++i)); do
    ns=${netns_prefix}h$i
    if ! ip netns add "$ns"; then
      (( i == 0 )) || { echo "cannot make network namespace $ns" >&2; return 1; }
      echo "skipped: this machine cannot make network namespaces (ip netns add)" >&2
      return 77
    fi
    netns_count=$((i + 1))
    { ip link add "${netns_prefix}v$i" type veth peer name eth0 netns "$ns" &&
      ip link set "${netns_prefix}v$i" master "${netns_prefix}br" up &&
      ip -n "$ns" addr add "$netns_subnet.$((i + 1))/24" dev eth0 &&
      ip -n "$ns" link set eth0 up && ip -n "$ns" link set lo up; } || { echo "cannot link host h$i" >&2; return 1; }
    echo "h$i slots=1" >> "$netns_hostfile"
  done
  # Each host resolves the others' names (ip netns exec puts /etc/netns/NS/hosts over /etc/hosts).
  for ((i = 0; i < n; ++i)); do
    mkdir -p "/etc/netns/${netns_prefix}h$i"
    { echo "127.0.0.1 localhost"; for ((j = 0; j < n; ++j)); do echo "$netns_subnet.$((j + 1)) h$j"; done; } \
      > "/etc/netns/${netns_prefix}h$i/hosts"
  done
  # The rsh agent: mpiexec calls it as `agent HOST COMMAND...` to start its
  # daemon on HOST; it runs COMMAND in HOST's namespace under HOST's name.
  netns_agent=$dir/netns-rsh
  cat > "$netns_agent" <<'EOF'
#!/bin/sh
host=$1; shift
exec ip netns exec "${DTB_NETNS_PREFIX}$host" unshare --uts sh -c "hostname $host; exec $*"
EOF
  chmod +x "$netns_agent"
}

netns_hosts_down() {
  local i
  for ((i = 0; i < netns_count; ++i)); do
    ip netns pids "${netns_prefix}h$i" 2>/dev/null | xargs -r kill -9 2>/dev/null || true
  done
  for ((i = 0; i < netns_count; ++i)); do
    ip link del "${netns_prefix}v$i" 2>/dev/null || true  # both ends of the pair
    ip netns del "${netns_prefix}h$i" 2>/dev/null || true
    rm -rf "/etc/netns/${netns_prefix}h$i"
  done
  ip link del "${netns_prefix}br" 2>/dev/null || true
  netns_count=0
}

# mpiexec on host h0 (rank 0's), over the hosts of hostfile $1 with TCP
# only, the ranks bound to no core: every host is this machine, where
# binding each host's one rank to "its" first core would put them all on
# the same core. The daemons' keepalives let mpiexec notice a host it cannot reach
# 9 to 19 s after it went (Open MPI's default: 8 to 13 minutes); dtb's own
# heartbeats (--rank-timeout) name the rank lost before that.
mpi_on_hosts() {
  local file=$1 ranks
  shift
  ranks=$(wc -l < "$file")
  ip netns exec "${netns_prefix}h0" unshare --uts sh -c 'hostname h0; exec "$@"' sh \
    mpiexec --hostfile "$file" -n "$ranks" --bind-to none --mca plm_rsh_agent "$netns_agent" \
    --mca pml ob1 --mca btl tcp,self --mca btl_tcp_if_include "$netns_subnet.0/24" \
    --mca oob_tcp_if_include "$netns_subnet.0/24" \
    --mca oob_tcp_keepalive_time 10 --mca oob_tcp_keepalive_intvl 3 --mca oob_tcp_keepalive_probes 3 \
    "$@"
}

tx_bytes() { ip netns exec "${netns_prefix}h$1" cat /sys/class/net/eth0/statistics/tx_bytes; }
