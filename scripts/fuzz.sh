#!/usr/bin/env bash
# Fuzzes the parsers with libFuzzer: builds the core and tests/fuzz with clang (AddressSanitizer,
# UBSan) into ${SANDBENCH_FUZZ_BUILD_DIR:-build-fuzz}, then runs each target for SECONDS.
#
#   scripts/fuzz.sh [SECONDS] [TARGET…]     # default 60 s each; targets: mcp control http socks policy e2b recording image terminal dns modelusage secretscan codeinterpreter dial screen
#
# Each target starts from its seed corpus (tests/fuzz/corpus/NAME) and keeps what it finds in
# BUILD/corpus/NAME for the next run; a crash or failed check is saved as BUILD/crash-NAME-*
# and ends the script with status 1. Add such an input to the seed corpus with its fix.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
[ $# -gt 0 ] && shift
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(mcp control http socks policy e2b recording image terminal dns modelusage secretscan codeinterpreter dial screen)
build=${SANDBENCH_FUZZ_BUILD_DIR:-build-fuzz}

command -v clang++ >/dev/null 2>&1 || { echo "scripts/fuzz.sh: clang++ is not installed (scripts/deps.sh installs it)" >&2; exit 1; }
CC=clang CXX=clang++ cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSANDBENCH_FUZZ=ON -DBUILD_TESTING=OFF >/dev/null
cmake --build "$build" -j"$(nproc)" --target fuzz-targets

status=0
for t in "${targets[@]}"; do
  seeds=(tests/fuzz/corpus/"$t")
  [ "$t" = policy ] && seeds+=(resources/presets)
  mkdir -p "$build/corpus/$t"
  echo "== fuzz_$t for $seconds s"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -dict="tests/fuzz/dict/$t.dict" -artifact_prefix="$build/crash-$t-" -print_final_stats=1 \
      "$build/corpus/$t" "${seeds[@]}" 2>"$build/fuzz-$t.log"; then
    tail -40 "$build/fuzz-$t.log" >&2
    status=1
  fi
  grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "$build/fuzz-$t.log" | tr '\n' ' '
  echo
done
exit $status
