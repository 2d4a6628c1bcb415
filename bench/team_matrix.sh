#!/usr/bin/env bash
# What a distributed build costs against one process, on a whole set
# (docs/scaling.md, "Ranks against one process"): the set is built by one
# process of T threads, then by R ranks of one thread each for every R
# given, over shared memory and, with --hosts, across hosts of network
# namespaces over TCP (scripts/netns_hosts.sh). Prints, per run, the
# seconds, the processor seconds of all ranks and their ratio to the one
# process's, the bytes the ranks sent each other (in all and a position of
# the set), the materials solved in teams, the time ranks waited for their
# teams and the largest peak memory of a rank; every run's tables must be
# the one process's byte for byte. With --rounds N the whole sequence (the
# one process, then each run of ranks) is taken N times in turn, each
# run's ratio against its own round's one process, and the end gives each
# run's ratio of the means and the range of its rounds' ratios: on a
# shared machine single runs of one binary spread by a fifth within the
# hour (docs/scaling.md, "Where it stands"), so only runs in turn compare.
#
#     bench/team_matrix.sh [--ranks "2 3"] [--hosts] [--team-positions P] [--largest-teams] [--dtb PATH]
#                          [--logs DIR] [--rounds N] VARIANT PIECES
#     bench/team_matrix.sh --hosts --team-positions 20000000 --largest-teams brazilian 6
#
# --team-positions (default 2^28, dtb's) is passed to the ranks. Even small,
# the scheduler forms few teams where many materials are ready at once;
# --largest-teams (the test hook DTB_TEST_LARGEST_TEAMS) gives each material
# its largest team, one rank per P positions, so that every material of
# more than P positions is solved in a team. DTB_BUILD_OPTIONS adds
# options to every build (`--rules`, `--memory 4`); THREADS sets the one
# process's threads (default: the machine's cores). Ranks oversubscribe the
# cores freely and are bound to none: on a machine with fewer cores than
# ranks the seconds mean little, the processor seconds still do. --logs DIR
# keeps what each build printed (DIR/one.out, shmR.out, hostsR.out; the
# last round's). --hosts
# needs root; exits 77 where namespaces cannot be made.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dtb=$here/build/dtb ranks="2 3" hosts= team_positions=268435456 largest=0 logs= rounds=1
usage() {
  echo "usage: $0 [--ranks \"2 3\"] [--hosts] [--team-positions P] [--largest-teams] [--dtb PATH] [--logs DIR]" \
    "[--rounds N] VARIANT PIECES" >&2
  exit 2
}
while (( $# )); do
  case $1 in
    --ranks) [[ ${2:-} =~ ^[0-9\ ]+$ ]] || usage; ranks=$2; shift 2 ;;
    --hosts) hosts=1; shift ;;
    --team-positions) [[ ${2:-} =~ ^[0-9]+$ ]] || usage; team_positions=$2; shift 2 ;;
    --largest-teams) largest=1; shift ;;
    --dtb) [[ -n ${2:-} ]] || usage; dtb=$(realpath -m "$2"); shift 2 ;;
    --logs) [[ -n ${2:-} ]] || usage; logs=$(realpath -m "$2"); shift 2 ;;
    --rounds) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || usage; rounds=$2; shift 2 ;;
    -*) usage ;;
    *) break ;;
  esac
done
(( $# == 2 )) || usage
variant=$1 pieces=$2
[[ -x $dtb ]] || { echo "team_matrix: $dtb not found: run scripts/build.sh first, or give --dtb" >&2; exit 1; }
threads=${THREADS:-$(nproc)}
read -r -a extra <<< "${DTB_BUILD_OPTIONS:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export SOURCE_DATE_EPOCH=1767225600  # so that the tables compare byte for byte
hook=()  # the test hook is on wherever it is set, whatever its value
if ((largest)); then
  export DTB_TEST_LARGEST_TEAMS=1
  hook=(-x DTB_TEST_LARGEST_TEAMS)
fi
work=$(mktemp -d /tmp/dtb-matrix.XXXXXX)
if [[ -n $hosts ]]; then
  max=0
  for r in $ranks; do (( r > max )) && max=$r; done
  source "$here/scripts/netns_hosts.sh"
fi
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  [[ -n $hosts ]] && netns_hosts_down
  if [[ -n $logs ]]; then mkdir -p "$logs" && cp "$work"/*.out "$logs"/ 2>/dev/null || true; fi
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
if [[ -n $hosts ]]; then
  netns_hosts_up "$max" "$work" || exit
fi
build=(build --variant "$variant" --pieces "$pieces" "${extra[@]}")

now() { date +%s.%N; }
echo "team_matrix: $variant up to $pieces, $("$dtb" --version 2>/dev/null | head -1), $(nproc) cores," \
  "team positions $team_positions$( ((largest)) && echo ", largest teams"), options: ${extra[*]:-none}"
printf "%-22s %9s %11s %8s %10s %9s %6s %9s %9s\n" run seconds processor "x one" "sent MB" "B/pos" parts \
  "waited s" "MiB/rank"

# run LABEL OUTPUT COMMAND...: one distributed build, summed over its ranks' lines.
run() {
  local label=$1 out=$2
  shift 2
  rm -rf "$work/run"
  start=$(now)
  "$@" > "$out" 2>&1 || { cat "$out" >&2; echo "team_matrix: $label failed" >&2; exit 1; }
  seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  "$here/scripts/same_tables.sh" "$work/one" "$work/run" "$variant" > /dev/null \
    || { echo "team_matrix: $label gave other tables than one process" >&2; exit 1; }
  line=$(awk -v label="$label" -v seconds="$seconds" -v one="$one" '
    /^rank [0-9]+ / {
      match($0, /processor [0-9.]+ s/); processor += substr($0, RSTART + 10, RLENGTH - 12)
      match($0, /sent [0-9]+ bytes/); sent += substr($0, RSTART + 5, RLENGTH - 11)
      match($0, /[0-9]+ in teams/); teams += substr($0, RSTART, RLENGTH - 9)
      match($0, /waiting for its teams [0-9.]+ s/); waited += substr($0, RSTART + 22, RLENGTH - 24)
      match($0, /peak memory [0-9]+ MiB/); p = substr($0, RSTART + 12, RLENGTH - 16) + 0; if (p > peak) peak = p
    }
    /^built / { match($0, /\([0-9]+ positions\)/); positions = substr($0, RSTART + 1, RLENGTH - 12) }
    END {
      printf "%-22s %9s %11.1f %8.3f %10.1f %9.3f %6d %9.1f %9d\n", label, seconds, processor, processor / one,
             sent / 1e6, sent / positions, teams, waited, peak
    }' "$out")
  echo "$line"
  [[ -n ${processor_of[$label]+set} ]] || labels+=("$label")
  processor_of[$label]+=" $(awk '{ print $(NF - 6) }' <<< "$line")"
  ratios_of[$label]+=" $(awk '{ print $(NF - 5) }' <<< "$line")"
}

# Each round: the one process, then the runs of ranks; the processor
# seconds of each kept for the means (the one process's in `ones`).
declare -A processor_of ratios_of
ones=
labels=()
for ((round = 1; round <= rounds; round++)); do
((rounds > 1)) && echo "round $round of $rounds"
rm -rf "$work/one"
start=$(now)
"$dtb" "${build[@]}" --threads "$threads" --dir "$work/one" --output log > "$work/one.out" 2>&1 \
  || { cat "$work/one.out" >&2; echo "team_matrix: the one-process build failed" >&2; exit 1; }
seconds=$(awk -v a="$start" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
one=$(sed -n -E 's/^built .* processor ([0-9.]+) s.*/\1/p' "$work/one.out")
peak=$(sed -n -E 's/^built .* peak memory ([0-9]+) MiB.*/\1/p' "$work/one.out")
printf "%-22s %9s %11s %8s %10s %9s %6s %9s %9s\n" "1 process, $threads threads" "$seconds" "$one" 1 - - - - "$peak"
ones+=" $one"

for r in $ranks; do
  run "$r ranks, shared memory" "$work/shm$r.out" mpiexec -n "$r" --oversubscribe --bind-to none \
    --mca btl self,vader "${hook[@]}" "$dtb" "${build[@]}" --threads 1 --team-positions "$team_positions" --dir "$work/run" \
    --output log
  if [[ -n $hosts ]]; then
    head -n "$r" "$netns_hostfile" > "$work/hostfile$r"
    run "$r ranks, $r hosts" "$work/hosts$r.out" mpi_on_hosts "$work/hostfile$r" "${hook[@]}" "$dtb" "${build[@]}" \
      --threads 1 --team-positions "$team_positions" --dir "$work/run" --output log
  fi
done
done

if ((rounds > 1)); then
  echo "over $rounds rounds in turn: the ranks' mean processor seconds over the one process's mean (${ones# }); the rounds' ratios"
  for label in "${labels[@]}"; do
    awk -v label="$label" -v ones="$ones" -v mine="${processor_of[$label]}" -v ratios="${ratios_of[$label]}" 'BEGIN {
      n = split(ones, o, " "); for (i = 1; i <= n; i++) a += o[i]
      m = split(mine, p, " "); for (i = 1; i <= m; i++) b += p[i]
      split(ratios, r, " "); lo = r[1]; hi = r[1]; for (i = 2; i <= m; i++) { if (r[i] < lo) lo = r[i]; if (r[i] > hi) hi = r[i] }
      printf "%-22s %8.3f  (%s to %s)\n", label, (b / m) / (a / n), lo, hi
    }'
  done
fi
