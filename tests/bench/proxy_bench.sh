#!/usr/bin/env bash
# Runs the proxy benchmark (tests/bench/proxy_bench.cpp) with the HTTP proxy of the npm package
# @anthropic-ai/sandbox-runtime beside Sandbench's, in the same run. See BENCHMARKS.md.
#   tests/bench/proxy_bench.sh [--quick] [--no-srt]
# SANDBENCH_BUILD_DIR picks the build dir (default build/); it must hold core/libsandbench_core.a.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${SANDBENCH_BUILD_DIR:-$root/build}
[[ $build = /* ]] || build=$root/$build
args=()
srt=1
for a in "$@"; do
  case $a in
    --no-srt) srt=0 ;;
    *) args+=("$a") ;;
  esac
done

bench=$build/tests/bench/proxy_bench
cmake --build "$build" --target proxy_bench >/dev/null

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [[ $srt = 1 ]]; then
  # The package's HTTP proxy module, started alone: createHttpProxyServer() with a filter that
  # allows everything (the benchmark measures relaying, not policy), listening on 127.0.0.1:0.
  (cd "$tmp" && npm install --silent --no-audit --no-fund @anthropic-ai/sandbox-runtime >/dev/null)
  version=$(node -p "require('$tmp/node_modules/@anthropic-ai/sandbox-runtime/package.json').version")
  cat >"$tmp/srt-proxy.mjs" <<EOF
import { createHttpProxyServer } from '$tmp/node_modules/@anthropic-ai/sandbox-runtime/dist/sandbox/http-proxy.js';
const server = createHttpProxyServer({ filter: () => true });
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
EOF
  echo "sandbox-runtime $version, node $(node --version)"
  args+=(--srt-script "$tmp/srt-proxy.mjs")
fi
echo "kernel $(uname -r), $(nproc) CPUs"
"$bench" "${args[@]}"
