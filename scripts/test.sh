#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest; then the
# same tests built with clang under AddressSanitizer and UndefinedBehaviorSanitizer
# in their own folder (build-asan).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"

"$here/scripts/build.sh"
(cd "$here/build" && ctest --output-on-failure --timeout 1200 -j "$(nproc)")

asan="$here/build-asan"
if [[ ! -f "$asan/CMakeCache.txt" ]]; then
  flags="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  CC=clang CXX=clang++ cmake -S "$here" -B "$asan" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDTB_NATIVE=OFF -DDTB_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build "$asan" --parallel "$(nproc)"
echo "== the same tests under AddressSanitizer and UndefinedBehaviorSanitizer"
(cd "$asan" && ctest --output-on-failure --timeout 1200 -j "$(nproc)")
