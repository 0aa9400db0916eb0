#!/usr/bin/env bash
# Configures and builds into ${SANDBENCH_BUILD_DIR:-build} (Release with debug info, Ninja, ccache).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SANDBENCH_BUILD_DIR:-build}
# SANDBENCH_WERROR=1 (CI) makes every compiler warning an error.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DSANDBENCH_WERROR="${SANDBENCH_WERROR:-OFF}" >/dev/null
cmake --build "$build" -j"$(nproc)" "$@"
