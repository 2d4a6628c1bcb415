#!/usr/bin/env bash
# Fuzzes the table reader (tests/fuzz/table_fuzz.cpp) with libFuzzer under
# AddressSanitizer and UndefinedBehaviorSanitizer for a bounded time:
#   scripts/fuzz.sh [SECONDS]      (default 60)
# Built with clang in build-fuzz. The seeds are small valid tables written by
# tests/probe/synthetic_tool. Exits non-zero if the fuzzer finds a crash; the
# input that caused it is left in build-fuzz/crash-*.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
seconds=${1:-60}
fuzz="$here/build-fuzz"
if [[ ! -f "$fuzz/CMakeCache.txt" ]]; then
  flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
  CC=clang CXX=clang++ cmake -S "$here" -B "$fuzz" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DDTB_NATIVE=OFF -DDTB_BUILD_BENCH=OFF -DDTB_FUZZ=ON -DCMAKE_CXX_FLAGS="$flags" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
fi
cmake --build "$fuzz" --parallel "$(nproc)" --target table_fuzz synthetic_tool

# Seeds: every table of KMvK and what it leads to, in format version 1
# (synthetic values, both sides to move), 2 (the true values: .dtw and .rul
# of one side to move, .wld of version 3) and 4 (the same with a compact
# .wld), each with a first byte of 0 (fuzz as is) and 1 (checksums
# recomputed after mutation).
seeds="$fuzz/fuzz-seeds"
corpus="$fuzz/fuzz-corpus"
if [[ ! -d "$seeds" ]]; then
  "$fuzz/tests/synthetic_tool" write brazilian "$fuzz/fuzz-tables-1" KMvK
  "$fuzz/tests/synthetic_tool" rul brazilian "$fuzz/fuzz-tables-1" KMvK 1
  "$fuzz/tests/synthetic_tool" true brazilian "$fuzz/fuzz-tables-2" 2 KMvK
  "$fuzz/tests/synthetic_tool" rul brazilian "$fuzz/fuzz-tables-2" KMvK 2
  "$fuzz/tests/synthetic_tool" true brazilian "$fuzz/fuzz-tables-4" 4 KMvK
  mkdir -p "$seeds"
  for version in 1 2 4; do
    for f in "$fuzz/fuzz-tables-$version"/brazilian/*; do
      for mode in 0 1; do
        { printf "\\x3$mode"; cat "$f"; } > "$seeds/$(basename "$f").v$version.$mode"
      done
    done
  done
fi
mkdir -p "$corpus"
cd "$fuzz"
echo "== fuzzing the table reader for $seconds s"
./tests/table_fuzz -max_total_time="$seconds" -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
  "$corpus" "$seeds" 2>&1 | tail -n 15
