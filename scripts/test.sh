#!/usr/bin/env bash
# The whole test suite: installs what is missing, builds, runs ctest; then
#  - a one-node Slurm cluster on this machine running cluster/dtb-build.sbatch
#    unchanged (scripts/slurm_check.sh; installs Slurm and munge if missing),
#  - the same tests built with clang under AddressSanitizer and
#    UndefinedBehaviorSanitizer (build-asan),
#  - the probe library's table tests under ThreadSanitizer (build-tsan); the
#    solver runs inside oneTBB tasks, whose synchronisation ThreadSanitizer
#    cannot see in Debian's uninstrumented libtbb, so its thread safety is
#    checked by tables byte-identical across thread counts (cli.build) instead,
#  - the table reader's libFuzzer target for 60 seconds (build-fuzz).
# The sanitizer builds run the slowest tests a size down (DTB_TEST_SMALL: a
# piece fewer, through the same code paths; tests/test_size.hpp).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
"$here/scripts/setup.sh"

"$here/scripts/build.sh"
(cd "$here/build" && ctest --output-on-failure --timeout 1200 -j "$(nproc)")

echo "== cluster/dtb-build.sbatch on a one-node Slurm cluster"
"$here/scripts/slurm_check.sh" "$here/build"

# sanitized_build DIR SANITIZERS [TARGET...]: configures (once) and builds with clang.
sanitized_build() {
  local dir=$1 sanitizers=$2
  shift 2
  local flags="-fsanitize=$sanitizers -fno-sanitize-recover=all -fno-omit-frame-pointer"
  if [[ ! -f "$dir/CMakeCache.txt" ]]; then
    CC=clang CXX=clang++ cmake -S "$here" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DDTB_NATIVE=OFF -DDTB_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$flags" \
      -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=$sanitizers" -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=$sanitizers" \
      >/dev/null
  fi
  cmake "$dir" -DDTB_TEST_SMALL=ON >/dev/null
  local targets=()
  for t in "$@"; do targets+=(--target "$t"); done
  cmake --build "$dir" --parallel "$(nproc)" "${targets[@]}"
}

sanitized_build "$here/build-asan" address,undefined
echo "== the same tests under AddressSanitizer and UndefinedBehaviorSanitizer"
# hosts.check runs only in the build above: its heartbeats run in every MPI test here too.
# The rule solver's four largest brute-force comparisons too (its code runs
# here in the Russian, refusal and issue-figure tests).
(cd "$here/build-asan" && ctest --output-on-failure --timeout 1200 -j "$(nproc)" \
    -E '^hosts\.|^RuleSolver\.(International6|American6|Brazilian6|EightByEight)$')

sanitized_build "$here/build-tsan" thread table_tests
echo "== the table tests under ThreadSanitizer"
(cd "$here/build-tsan" && TSAN_OPTIONS="halt_on_error=1 suppressions=$here/tests/tsan.supp" ctest --output-on-failure --timeout 1200 -j "$(nproc)" -R '^Table')

"$here/scripts/fuzz.sh" 60
