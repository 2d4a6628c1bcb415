#!/usr/bin/env bash
# The include graph's layers (builder/README.md): each folder includes only
# itself and the folders listed before it, only builder/mpi/ includes MPI and
# only cli/main.cpp includes CLI11 (docs/design.md, "Command line"). And no
# file points at the plan the project started from, which a clone lacks.
#
#     tests/layers_check.sh SOURCE_DIR
set -euo pipefail
cd "$1"
layers=(draughts probe explorer builder/system builder/values builder/team builder/output builder/solver
  builder/driver builder/mpi cli)
# explorer/ stands beside builder/, not under it: builder/ may not include it.
declare -A barred=([builder/system]=explorer [builder/values]=explorer [builder/team]=explorer
  [builder/output]=explorer [builder/solver]=explorer [builder/driver]=explorer [builder/mpi]=explorer)
status=0
for ((i = 0; i < ${#layers[@]}; i++)); do
  folder=${layers[i]}
  allowed=("${layers[@]:0:i+1}")
  while IFS=: read -r file line text; do
    target=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<<"$text")
    ok=0
    for a in "${allowed[@]}"; do
      [[ $target == "$a"/* && $a != "${barred[$folder]:-}" ]] && ok=1
    done
    if [[ $ok == 0 ]]; then
      echo "$file:$line includes $target, a layer above $folder (builder/README.md)"
      status=1
    fi
  done < <(grep -rnE '^#include "[^"]+/' "$folder" --include='*.hpp' --include='*.cpp' --include='*.h' --include='*.c' |
    grep -vE "^$folder/[^:]*:[0-9]+:#include \"$folder/" | grep -E '#include "(draughts|probe|explorer|builder|cli)/' || true)
done
if grep -rlE '#include [<"]mpi\.h[>"]' draughts probe explorer builder cli | grep -v '^builder/mpi/'; then
  echo "MPI included outside builder/mpi/"
  status=1
fi
if grep -rlE '#include [<"]CLI/' draughts probe explorer builder cli | grep -v '^cli/main\.cpp$'; then
  echo "CLI11 included outside cli/main.cpp (each file that includes it compiles about 13 s longer)"
  status=1
fi
if grep -rnE 'DESIGN(\.md)? ?§|DESIGN\.md|\.\./shared/' draughts probe explorer builder cli tests bench scripts docs cluster \
  README.md CMakeLists.txt --exclude=layers_check.sh; then
  echo "a file points outside the repository: write what it needs into docs/ instead"
  status=1
fi
[[ $status == 0 ]] && echo "layers hold: ${layers[*]}"
exit $status
