#!/usr/bin/env bash
# The main job on a small default: installs what is missing, builds, and runs
# perft from the start position of all five variants, printing counts and speed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"
"$here/scripts/build.sh" >/dev/null
dtb="$here/build/builder/dtb"
for spec in american:10 brazilian:9 russian:9 international:8 canadian:7; do
  variant=${spec%%:*} depth=${spec##*:}
  "$dtb" perft --variant "$variant" --depth "$depth" >/dev/null 2>"$here/build/perft.log" || { cat "$here/build/perft.log" >&2; exit 1; }
  cat "$here/build/perft.log"
done
