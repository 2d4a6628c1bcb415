#!/bin/bash
# `dtb stats --json` on every material of a built set, smallest first, one
# JSON object a line appended to OUT; materials already in OUT are skipped,
# so a stopped run resumes where it was. scripts/set_report.py turns OUT and
# the set's manifest into the per-material table of docs/sets/.
#
#     scripts/set_stats.sh DTB DIR VARIANT OUT.jsonl
#
# DTB: the dtb binary; DIR: the tables directory (tables in DIR/VARIANT).
set -euo pipefail
if [ $# -ne 4 ]; then
    echo "usage: $0 DTB DIR VARIANT OUT.jsonl" >&2
    exit 2
fi
dtb=$1 dir=$2 variant=$3 out=$4
manifest=$dir/$variant/manifest.json
if [ ! -f "$manifest" ]; then
    echo "$0: no $manifest: build the set first (dtb build --variant $variant --dir $dir)" >&2
    exit 1
fi
touch "$out"
python3 - "$manifest" "$out" <<'PY' | while read -r material; do
import json, sys
done_ = set()
for line in open(sys.argv[2]):
    line = line.strip()
    if line.startswith("{"):
        done_.add(json.loads(line)["material"])
tables = json.load(open(sys.argv[1]))["tables"]
for t in sorted(tables, key=lambda t: t["positions"]):
    if t["material"] not in done_:
        print(t["material"])
PY
    line=$("$dtb" stats --variant "$variant" --dir "$dir" --material "$material" --json)
    echo "$line" | tr -d '\n' >> "$out"
    echo >> "$out"
done
