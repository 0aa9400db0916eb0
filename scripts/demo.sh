#!/usr/bin/env bash
# The main job: installs what is needed, builds, and runs the built-in demo in the terminal:
# a scripted agent in a sandbox over a fresh copy of a demo project, then its changes.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh --target sandbench-cli
exec "${SANDBENCH_BUILD_DIR:-build}/app/sandbench-cli" demo
