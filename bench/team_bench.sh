#!/usr/bin/env bash
# What a team costs against one rank, on one material (docs/scaling.md): the
# material's dependencies are built first (one process); then the material
# alone is built by 1 rank of T threads, and by teams of R ranks of 1 thread
# each (forced with a small --team-positions). Prints, per run, the seconds,
# the processor seconds of all ranks, the bytes the ranks sent each other per
# position, the time ranks waited for their teams, the peak memory per rank, the
# seconds all ranks spent reading tables back from their files, and the
# processor seconds of solving: all ranks' less what reading back took (a team
# reads its tables back on each member where a real build mostly holds them,
# and the projection counts tables on their own: docs/scaling.md).
#
#     bench/team_bench.sh VARIANT MATERIAL [RANKS...]     (default ranks: 2 3)
#     bench/team_bench.sh international KKKvKK 2 4
#
# DTB_TEAM_OPTIONS adds dtb build options to the team runs (for instance
# `--memory 0.001`: every table the material reads shared out, none held whole).
#
# Ranks are started with --bind-to none (threads share the cores as the OS
# places them) and oversubscribe freely; on a machine with fewer cores than
# ranks the seconds mean little, the processor seconds still do.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
dtb=${DTB:-$here/build/dtb}
variant=$1 material=$2
shift 2
[[ $# -gt 0 ]] && ranks=("$@") || ranks=(2 3)
threads=${THREADS:-$(nproc)}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
work=${WORK:-$(mktemp -d)}
trap 'rm -rf "$work"' EXIT

# The dependencies: everything the material leads to, built by one process,
# then the material itself taken out of the manifest and the directory.
"$dtb" build --variant "$variant" --material "$material" --dir "$work/base" --output quiet >/dev/null
python3 - "$work/base/$variant" "$material" <<'EOF'
import json, os, sys
d, m = sys.argv[1], sys.argv[2]
path = os.path.join(d, "manifest.json")
j = json.load(open(path))
j["tables"] = [t for t in j["tables"] if t["material"] != m]
json.dump(j, open(path, "w"), indent=1)
for ext in ("wld", "dtw"):
    os.remove(os.path.join(d, f"{m}.{ext}"))
EOF

printf "%-14s %-12s %8s %10s %10s %12s %10s %10s %12s %10s\n" material run seconds processor "M pos/s" "sent B/pos" \
  "waited s" "MiB/rank" "read back s" "solving"
run() {  # run LABEL RANKS THREADS [OPTIONS...]
  local label=$1 n=$2 t=$3
  shift 3
  rm -rf "$work/run" && cp -r "$work/base" "$work/run"
  local out
  out=$(mpiexec -n "$n" --oversubscribe --bind-to none "$dtb" build --variant "$variant" --material "$material" \
          --dir "$work/run" --threads "$t" --output log "$@")
  python3 - "$material" "$label" <<EOF
import re, sys
out = """$out"""
m, label = sys.argv[1], sys.argv[2]
line = next(l for l in out.splitlines() if l.startswith(m + " "))
positions = int(re.search(r"([\d,]+) positions", line).group(1).replace(",", ""))
seconds = float(re.search(r"  ([\d.]+) s  ", line).group(1))
ranks = [l for l in out.splitlines() if l.startswith("rank ")]
cpu = sum(float(re.search(r"processor ([\d.]+) s", r).group(1)) for r in ranks)
sent = sum(int(re.search(r"sent (\d+) bytes", r).group(1)) for r in ranks)
wait = max(float(re.search(r"waiting for its teams ([\d.]+) s", r).group(1)) for r in ranks)
mem = max(int(re.search(r"peak memory (\d+) MiB", r).group(1)) for r in ranks)
back = [re.search(r"read back from their files \d+ \(([\d.]+) s, processor ([\d.]+) s\)", r) for r in ranks]
back_cpu = sum(float(b.group(2)) for b in back)
print(f"{m:<14} {label:<12} {seconds:8.2f} {cpu:10.2f} {positions / seconds / 1e6:10.2f} {sent / positions:12.2f} "
      f"{wait:10.2f} {mem:10d} {sum(float(b.group(1)) for b in back):12.1f} {cpu - back_cpu:10.2f}")
EOF
}
run "1x$threads" 1 "$threads"
for n in "${ranks[@]}"; do run "team ${n}x1" "$n" 1 --team-positions 1 ${DTB_TEAM_OPTIONS:-}; done
