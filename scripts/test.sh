#!/usr/bin/env bash
# The whole test suite: installs what is needed, builds, and runs every test. As root it also
# runs the isolation tests as an unprivileged user (created if missing), since the sandbox takes
# a different path for each. SANDBENCH_MUST_WORK=1 turns every skipped sandbox test into a failure.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --tests

test_user=${SANDBENCH_TEST_USER:-sandbench-test}
if [ "$(id -u)" -eq 0 ]; then
  id "$test_user" >/dev/null 2>&1 || useradd --create-home --shell /bin/bash "$test_user"
  # The unprivileged user must be able to read the tree; when it can't (a clone under /root),
  # test a copy in a world-readable place instead.
  if ! runuser -u "$test_user" -- test -r "$PWD/CMakeLists.txt"; then
    mirror=/var/tmp/sandbench-tests
    mkdir -p "$mirror" && chmod 755 "$mirror"
    # An exact copy: what an earlier run copied and the tree no longer has (a removed source
    # file) must not be built. The copy's build folders stay, for an incremental build.
    find "$mirror" -mindepth 1 -maxdepth 1 ! -name build ! -name 'build-*' -exec rm -rf {} +
    tar --exclude=./build --exclude='./build-*' -cf - . | (cd "$mirror" && tar -xf -)
    echo "scripts/test.sh: testing a readable copy in $mirror" >&2
    exec "$mirror/scripts/test.sh"
  fi
fi

scripts/build.sh
build=$(cd "${SANDBENCH_BUILD_DIR:-build}" && pwd)
# The pinned npm test clients (tests/js/node_modules), before any test needs them: the JS tests
# and the integration test that runs the Claude Code CLI in a sandbox (ClaudeCodeSecretsTest).
tests/js/run.sh --install-only

status=0
if [ "$(id -u)" -eq 0 ]; then
  home=$(getent passwd "$test_user" | cut -d: -f6)
  echo "== isolation tests as the unprivileged user $test_user"
  runuser -u "$test_user" -- env -i PATH="$PATH" HOME="$home" USER="$test_user" TMPDIR=/tmp \
    LANG=C.UTF-8 SANDBENCH_MUST_WORK="${SANDBENCH_MUST_WORK:-}" \
    "$build/tests/integration_tests" --gtest_brief=1 || status=1
  echo "== GUI tests (real sessions) as the unprivileged user $test_user"
  for t in "$build"/tests/gui/gui_*Test; do
    runuser -u "$test_user" -- env -i PATH="$PATH" HOME="$home" USER="$test_user" TMPDIR=/tmp \
      LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen SANDBENCH_MUST_WORK="${SANDBENCH_MUST_WORK:-}" \
      "$t" -silent || status=1
  done
  echo "== MCP, E2B and OpenAI Agents client tests (the official SDKs) as the unprivileged user $test_user"
  runuser -u "$test_user" -- env -i PATH="$PATH" HOME="$home" USER="$test_user" TMPDIR=/tmp \
    LANG=C.UTF-8 SANDBENCH_MUST_WORK="${SANDBENCH_MUST_WORK:-}" \
    SANDBENCH_CLI="$build/app/sandbench-cli" tests/js/run.sh mcp.test.mjs e2b.test.mjs e2b-state.test.mjs e2b-envd.test.mjs \
    code-interpreter.test.mjs openai-agents.test.mjs || status=1
  echo "== every test as root"
fi
ctest --test-dir "$build" --output-on-failure -j2 || status=1
exit $status
