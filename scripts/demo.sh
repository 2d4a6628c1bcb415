#!/usr/bin/env bash
# The main job on a small default: installs what is missing, builds dtb, builds
# every Canadian (12x12) table of up to 4 pieces into tables/ (or $DTB_TABLES),
# with the tables of values under the move-count draw rules (.rul), prints
# the statistics of three kings against one and two kings against one,
# probes a few positions with their best lines, probes one under the rules
# with the 16-move count part run, and writes the report of
# KKKvK (tables/KKKvK.html). Run it again: the tables already built are
# kept (the manifest lists them) and only checked.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
# dtb alone (the tests and benchmarks are scripts/test.sh's), its compile
# shown file by file: a few minutes on 2 cores.
echo "== compiling dtb into build/ (the first time: a few minutes)"
"$here/scripts/build.sh" --dtb
echo "== the Canadian tables of up to 4 pieces, into ${DTB_TABLES:-$here/tables}"
dtb="$here/build/dtb"
tables=${DTB_TABLES:-$here/tables}

"$dtb" build --variant canadian --pieces 4 --dir "$tables" --rules
echo
"$dtb" stats --variant canadian --dir "$tables" --material KKKvK
echo
"$dtb" stats --variant canadian --dir "$tables" --material KKvK
# The longest wins of three kings and of two kings against one, a draw of
# three kings against one, and the longest win of two men against two.
for fen in "W:WK1,K8,K21:BK54" "W:WK1,K2,K3:BK72" "W:WK1,K2:BK66" "W:W43,50:B1,2"; do
  echo
  echo "$ dtb probe --variant canadian --dir $tables \"$fen\" --line"
  "$dtb" probe --variant canadian --dir "$tables" "$fen" --line
done
# Under the draw rules (docs/rules.md): the longest win of three kings against
# one, 15 plies, fits a 16-move count (32 plies) with 20 played, as the rule
# distance is 12 (a sacrifice into two kings against one starts a fresh
# 5-move count); with 21 played it is a cursed win, drawn by the count.
echo
"$dtb" stats --variant canadian --dir "$tables" --material KKKvK --rules
for count in E=20 E=21; do
  echo
  echo "$ dtb probe --variant canadian --dir $tables --rules --count $count W:WK1,K8,K21:BK54"
  "$dtb" probe --variant canadian --dir "$tables" --rules --count $count "W:WK1,K8,K21:BK54"
done
# Three kings against one as a page: counts, the distance chart, the longest
# win board by board, and under the draw rules the five classes and the wins
# that survive a count already at c.
echo
"$dtb" report --variant canadian --dir "$tables" --material KKKvK --out "$tables/KKKvK.html"
echo "Open it in a browser, or explore every position: $dtb serve --dir $tables (then http://127.0.0.1:8080/)"
