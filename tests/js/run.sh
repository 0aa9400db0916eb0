#!/usr/bin/env bash
# Runs the JavaScript test clients with Node's own test runner: run.sh [--node-option=value…] [FILE…]
# Installs the pinned packages (npm ci) into node_modules/ first when they are missing or older
# than package-lock.json. `run.sh --install-only` installs and stops (for a later run as a user who
# cannot write here). SANDBENCH_CLI may be relative to the caller's folder.
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

fail() { echo "tests/js/run.sh: $*" >&2; exit 1; }
command -v node >/dev/null 2>&1 || fail "node is not installed (scripts/deps.sh installs nodejs)"
command -v npm >/dev/null 2>&1 || fail "npm is not installed (scripts/deps.sh installs npm)"
node_major=$(node -p 'process.versions.node.split(".")[0]')
[ "$node_major" -ge 20 ] || fail "node $(node --version) is too old: these tests need Node 20 or newer"

# Paths given relative to the caller's folder still work after the cd below.
if [ -n "${SANDBENCH_CLI:-}" ] && [[ $SANDBENCH_CLI != /* ]]; then
  export SANDBENCH_CLI="$PWD/$SANDBENCH_CLI"
fi
# Node 20 takes everything after the first file for a file, so options go first (give them as
# --option=value).
options=() files=()
for a in "$@"; do
  if [[ $a == -* ]]; then options+=("$a")
  elif [[ $a != /* && -f $a ]]; then files+=("$PWD/$a")
  else files+=("$a"); fi
done

cd "$here"
install_only=0 rest=()
for o in "${options[@]}"; do
  if [ "$o" = --install-only ]; then install_only=1; else rest+=("$o"); fi
done
options=("${rest[@]}")

needs_install() {
  [ ! -f node_modules/.package-lock.json ] ||
    [ package-lock.json -nt node_modules/.package-lock.json ] ||
    [ package.json -nt node_modules/.package-lock.json ]
}
if needs_install; then
  # One install at a time when several tests start together (flock is in util-linux).
  exec 9<package-lock.json
  command -v flock >/dev/null 2>&1 && flock 9
  if needs_install; then
    [ -w . ] || fail "node_modules/ is missing or stale and $here is not writable: run tests/js/run.sh --install-only as its owner first"
    echo "tests/js/run.sh: npm ci" >&2
    npm ci --no-audit --no-fund >&2 || fail "npm ci failed"
  fi
  exec 9<&-
fi
[ "$install_only" -eq 0 ] || exit 0

# --preserve-symlinks: the clients/ packages are linked into node_modules (file: dependencies)
# and must find their peer dependencies here, as an installed copy would.
exec node --preserve-symlinks --test --test-concurrency=1 "${options[@]}" "${files[@]}"
