#!/usr/bin/env bash
# Configures and builds into ${SANDBENCH_BUILD_DIR:-build} (Release with debug info, Ninja, ccache).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${SANDBENCH_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$(nproc)" "$@"
