#!/usr/bin/env bash
# Configures and builds dtb (Release) into build/ or the folder given.
#
#     scripts/build.sh [DIR]          everything: dtb, libraries, tests, benchmarks
#     scripts/build.sh --dtb [DIR]    dtb alone, with the libraries it links (what the
#                                     demo runs: about a third of the compile)
#     scripts/build.sh --pgo [DIR]    dtb trained on the solver (GCC's profile-guided
#                                     optimisation), into build-pgo/ by default: for
#                                     long builds, about a tenth faster (docs/results.md);
#                                     takes two compiles and a training run, about
#                                     12 minutes on 2 cores; again only when the sources change.
#                                     Give it a folder of its own: it builds dtb alone there,
#                                     without the tests and benchmarks
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
pgo=0
targets=()
if [[ ${1:-} == --pgo ]]; then
  pgo=1
  shift
elif [[ ${1:-} == --dtb ]]; then
  targets=(--target dtb)
  shift
fi
build=${1:-$here/build}
[[ $pgo == 1 && $# -eq 0 ]] && build=$here/build-pgo
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$here" -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null
fi

if [[ $pgo == 0 ]]; then
  cmake --build "$build" --parallel "$(nproc)" "${targets[@]}"
  exit 0
fi

# The profile is kept with a fingerprint of the sources it was trained on,
# and trained again when they change.
profile=$build/pgo-profile
sources=$(cd "$here" && find CMakeLists.txt draughts probe builder explorer cli -type f | sort | xargs cat | sha1sum | cut -d' ' -f1)
if [[ $(cat "$profile/sources" 2>/dev/null) != "$sources" ]]; then
  echo "build.sh: training the profile-guided build in $build (an instrumented dtb builds small sets of every variant)" >&2
  rm -rf "$profile"
  cmake "$build" -DDTB_PGO=generate -DDTB_PGO_DIR="$profile" -DDTB_BUILD_TESTS=OFF -DDTB_BUILD_BENCH=OFF >/dev/null
  cmake --build "$build" --parallel "$(nproc)" --target dtb
  "$here/scripts/pgo_train.sh" "$build/dtb"
  echo "$sources" >"$profile/sources"
fi
cmake "$build" -DDTB_PGO=use -DDTB_PGO_DIR="$profile" -DDTB_BUILD_TESTS=OFF -DDTB_BUILD_BENCH=OFF >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target dtb
