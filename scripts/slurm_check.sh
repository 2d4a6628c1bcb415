#!/usr/bin/env bash
# A real Slurm check of cluster/dtb-build.sbatch: installs Debian's Slurm
# (slurm-wlm) and munge if they are missing, starts a one-node cluster on
# this machine (munged, slurmctld and slurmd on loopback, configuration and
# state in a folder of their own), submits the batch script unchanged for a
# small build, waits for the job and checks its tables: `dtb verify`, and
# byte for byte the tables of a one-process build. Then it stops the cluster.
#
#     scripts/slurm_check.sh [--requeue] [BUILD_DIR]   # BUILD_DIR: where dtb is built (default build/)
#
# With --requeue the build is one that outlasts a one-minute time limit
# (Brazilian up to 5 pieces on 2 ranks of 1 thread) and Slurm is told to warn
# the job 40 s before the end: the job must requeue itself, start again,
# skip the tables it finished and complete (3 to 6 minutes, most of it
# Slurm holding the requeued job back).
#
# Needs root (it installs packages and starts the daemons). Exit status 0
# only if the job ran and its tables are right. DTB_SLURM_LAUNCHER=mpiexec
# or srun picks how the job starts its ranks (default: the script's own
# choice, srun with PMIx when Slurm offers it).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
requeue=
if [[ ${1:-} == --requeue ]]; then requeue=yes; shift; fi
build=${1:-$here/build}
dtb=$build/dtb
[[ -x $dtb ]] || { echo "slurm_check: $dtb not found: run scripts/build.sh first" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || { echo "slurm_check: run as root (it installs Slurm and starts its daemons)" >&2; exit 1; }

missing=()
for p in slurm-wlm munge; do
  [[ $(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true) == "install ok installed" ]] || missing+=("$p")
done
if (( ${#missing[@]} )); then
  echo "slurm_check: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$build/slurm-check
rm -rf "$work"
mkdir -p "$work"/{state,spool,log,tables,reference}
node=$(hostname -s)
cpus=$(nproc)
memory=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 * 9 / 10 ))
export SLURM_CONF=$work/slurm.conf
cat > "$SLURM_CONF" <<EOF
ClusterName=dtbcheck
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/log/slurmctld.log
SlurmdLogFile=$work/log/slurmd.log
SlurmctldPort=6817
SlurmdPort=6818
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=check Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
EOF

started_munge=
stop() {
  scontrol shutdown >/dev/null 2>&1 || true
  sleep 1
  pkill -f "slurmd -f $SLURM_CONF" 2>/dev/null || true
  pkill -f "slurmctld -f $SLURM_CONF" 2>/dev/null || true
  if [[ -n $started_munge ]]; then pkill -x munged 2>/dev/null || true; fi
}
trap stop EXIT

if ! pgrep -x munged >/dev/null; then
  mkdir -p /run/munge && chown munge:munge /run/munge
  [[ -s /etc/munge/munge.key ]] || { mungekey --create 2>/dev/null || dd if=/dev/urandom of=/etc/munge/munge.key bs=1 count=1024 2>/dev/null; }
  chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
  runuser -u munge -- /usr/sbin/munged
  started_munge=yes
fi
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  state=$(sinfo -h -n "$node" -o %t 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 1
done
[[ $state == idle ]] || { echo "slurm_check: the node did not come up ($state); see $work/log" >&2; exit 1; }
echo "slurm_check: one-node cluster up ($node, $cpus CPUs); srun offers: $(srun --mpi=list 2>&1 | tr '\n' ' ')"

# A small build: Brazilian up to 4 pieces, 2 ranks of 1 thread, teams allowed
# small so that ranks may solve materials together too; or, with --requeue, one
# that outlasts its time limit.
export SOURCE_DATE_EPOCH=1767225600
pieces=4 limit=(--time=10) teams=60000
[[ -n $requeue ]] && pieces=5 limit=(--time=1 --signal=B:USR1@40) teams=
"$dtb" build --variant brazilian --pieces $pieces --dir "$work/reference" --output quiet >/dev/null
job=$(cd "$work" && sbatch --parsable --nodes=1 --ntasks-per-node=2 --cpus-per-task=1 --mem=4G "${limit[@]}" \
        --export=ALL,DTB="$dtb",DTB_VARIANT=brazilian,DTB_PIECES=$pieces,DTB_TABLES="$work/tables",DTB_TEAM_POSITIONS=$teams,DTB_LAUNCHER="${DTB_SLURM_LAUNCHER:-auto}" \
        "$here/cluster/dtb-build.sbatch")
echo "slurm_check: submitted job $job"
for _ in $(seq 600); do
  state=$(scontrol show job "$job" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2)
  case $state in COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY|BOOT_FAIL|DEADLINE) break ;; esac
  sleep 1
done
output=$work/dtb-build-$job.out
cat "$output" 2>/dev/null || true
[[ $state == COMPLETED ]] || { echo "slurm_check: job $job ended $state; see $output and $work/log" >&2; exit 1; }
grep -q "building on 2 ranks" "$output" || { echo "slurm_check: the job did not run on 2 ranks" >&2; exit 1; }
if [[ -n $requeue ]]; then
  grep -q "requeueing job $job" "$output" || { echo "slurm_check: the job was not requeued" >&2; exit 1; }
  grep -q "already built" "$output" || { echo "slurm_check: the requeued job did not resume" >&2; exit 1; }
else
  # Whether teams form depends on timing (a material's team is its share of
  # the work ready when it starts); tests/cli/mpi_build_cli.cmake checks one
  # that must. Here it is only said.
  echo "slurm_check: $(grep -c " on 2 ranks$" "$output" || true) materials solved by a team of 2 ranks"
fi
"$dtb" verify --variant brazilian --dir "$work/tables" | tail -1
"$here/scripts/same_tables.sh" "$work/reference" "$work/tables" brazilian > /dev/null \
  || { echo "slurm_check: the tables differ from a one-process build's" >&2; exit 1; }
echo "slurm_check: ok: job $job built $(ls "$work"/tables/brazilian/*.dtw | wc -l) materials on 2 ranks under Slurm, tables identical to a one-process build"
