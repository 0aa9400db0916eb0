#!/usr/bin/env bash
# The main job: installs what is needed, builds, and opens the Sandbench window on the built-in
# demo session: a scripted agent in a sandbox over a fresh copy of a demo project. Without a
# display it says so and runs the same demo in the terminal instead.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
build=${SANDBENCH_BUILD_DIR:-build}
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  scripts/build.sh --target sandbench-cli sandbench
  exec "$build/app/sandbench" --demo
fi
echo "scripts/demo.sh: no display (DISPLAY and WAYLAND_DISPLAY are unset): running the demo in" \
  "the terminal instead of the window" >&2
scripts/build.sh --target sandbench-cli
exec "$build/app/sandbench-cli" demo
