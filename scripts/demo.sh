#!/usr/bin/env bash
# The main job on a small default: installs what is missing, builds dtb, builds
# every Canadian (12x12) table of up to 4 pieces into tables/ (or $DTB_TABLES),
# prints the statistics of three kings against one and two kings against one,
# and probes a few positions with their best lines. Run it again: the tables
# already built are kept (the manifest lists them) and only checked.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" >/dev/null
dtb="$here/build/builder/dtb"
tables=${DTB_TABLES:-$here/tables}

"$dtb" build --variant canadian --pieces 4 --dir "$tables"
echo
"$dtb" stats --variant canadian --dir "$tables" --material KKKvK
echo
"$dtb" stats --variant canadian --dir "$tables" --material KKvK
# Three kings against one, the lone king on the long diagonal or off it; a
# king and a man against a king; two men against one.
for fen in "W:WK1,K2,K3:BK72" "B:WK1,K2,K3:BK67" "W:WK12,30:BK61" "W:W50,55:B20"; do
  echo
  echo "$ dtb probe --variant canadian --dir $tables \"$fen\" --line"
  "$dtb" probe --variant canadian --dir "$tables" "$fen" --line
done
