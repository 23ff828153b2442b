#!/usr/bin/env bash
# Builds the front-end fuzzer with clang (libFuzzer + ASan + UBSan) in its own
# build directory and runs it for a bounded time on a corpus seeded with the
# examples, the stdlib, the bad-input cases and the formatter's golden cases.
# Exit status 0 means the run ended without a finding; a finding leaves its
# reproducer in the build dir and prints it.
#   usage: run_fuzz.sh SOURCE_DIR BUILD_DIR SECONDS
set -eu
src=$1 build=$2 seconds=${3:-60}
cxx=$(command -v clang++-14 || command -v clang++)
cc=$(command -v clang-14 || command -v clang)
flags="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -gline-tables-only -O0"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_CXX_FLAGS="$flags" \
    -DMDH_FUZZ=ON -DMDH_RUN_FUZZ_IN_SUITE=OFF > "$build.configure.log" 2>&1 || { cat "$build.configure.log"; exit 1; }
fi
cmake --build "$build" --target mdh_fuzz_frontend -j 2 > "$build.build.log" 2>&1 || { tail -50 "$build.build.log"; exit 1; }
corpus="$build/corpus"
mkdir -p "$corpus" "$build/artifacts"
cp "$src"/examples/*.mdh "$src"/stdlib/*.mdh "$corpus"/ 2>/dev/null || true
cp "$src"/tests/diag/*.mdh "$corpus"/ 2>/dev/null || true
# The formatter cases seed comments in awkward places (fmt must stay idempotent on them).
cp "$src"/tests/golden/fmt_*.mdh "$corpus"/ 2>/dev/null || true
cd "$build"
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
export UBSAN_OPTIONS=print_stacktrace=1
set +e
./tests/mdh_fuzz_frontend -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 \
  -artifact_prefix="$build/artifacts/" -print_final_stats=1 "$corpus" > fuzz.log 2>&1
status=$?
set -e
tail -25 fuzz.log
if [ $status -ne 0 ]; then
  echo "FUZZ FINDING: reproducers in $build/artifacts:"
  ls -l "$build/artifacts"
  for f in "$build"/artifacts/*; do [ -f "$f" ] && { echo "--- $f"; head -c 2000 "$f"; echo; }; done
  exit 1
fi
echo "fuzzed for $seconds s without a finding"
