#!/usr/bin/env bash
# Programmable sessions (issue 21): what an exec into a live sandbox costs, against starting a
# fresh one, and the E2B-compatible API from its SDK. See BENCHMARKS.md, rows 5 to 6b.
#
# Usage: tests/bench/exec_bench.sh [--rounds N]
#
#   5.  `sandbench-cli exec SESSION -- /usr/bin/true`, round trip (the CLI's start, the request,
#       the sandboxed exec and its approval, the exit) against a fresh `bwrap … /usr/bin/true`
#       (the command line of BENCHMARKS.md row 1), interleaved; target <= 0.5x.
#   5b. The MCP server's run_command of `true`, round trip from the official TypeScript SDK
#       client (tests/js; skipped without its node_modules), against a fresh bwrap start timed
#       by the same script in the same rounds; target <= 1.0x.
#   5c. 100 execs of `sleep 1` at once: all must end with status 0; the supervisor's peak VmRSS
#       meanwhile, sampled every 20 ms; target <= 20 MB.
#   6.  The E2B-compatible API from the official e2b SDK (tests/bench/e2b_bench.mjs; skipped
#       without tests/js's node_modules): Sandbox.create() to the first commands.run('true')
#       done (serve's spare taken), target <= 1.0x; 6b. commands.run('true') on a live sandbox,
#       <= 5 ms; both against a fresh bwrap start; then the Code Interpreter's rows (create to
#       the first runCode('1') <= 1.5 s; runCode('1') live <= 0.5x a `python3 -c pass` start).
#
# Builds nothing: the CLI is $SANDBENCH_BUILD_DIR/app/sandbench-cli (default ./build).
# Exit status 0 when every part ran (targets met or not), 1 when one could not run.
set -u -o pipefail
export LC_ALL=C

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)
ROUNDS=30
while (($#)); do
    case $1 in
    --rounds) ROUNDS=${2:?--rounds needs a number}; shift ;;
    -h | --help) sed -n '2,22p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "exec_bench: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done
CLI=$(readlink -f "${SANDBENCH_BUILD_DIR:-$REPO/build}")/app/sandbench-cli
[[ -x $CLI ]] || { echo "exec_bench: no $CLI (cmake --build build)" >&2; exit 1; }
command -v bwrap >/dev/null || { echo "exec_bench: needs bwrap (Debian: bubblewrap)" >&2; exit 1; }

SCRATCH=$(mktemp -d)
export XDG_STATE_HOME=$SCRATCH/state XDG_DATA_HOME=$SCRATCH/data
export XDG_RUNTIME_DIR=$SCRATCH/run XDG_CONFIG_HOME=$SCRATCH/config
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
WORKSPACE=$SCRATCH/ws
mkdir -p "$WORKSPACE"
SESSION=bench
cleanup() { "$CLI" kill "$SESSION" >/dev/null 2>&1; rm -rf "$SCRATCH"; }
trap cleanup EXIT

quantile()
{
    sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        h = (NR - 1) * p + 1; lo = int(h); hi = (lo < NR) ? lo + 1 : lo
        printf "%.6g\n", v[lo] + (h - lo) * (v[hi] - v[lo]) }'
}
median() { quantile 0.5; }
time_us()
{
    local t0 t1
    t0=$EPOCHREALTIME
    "$@" </dev/null >/dev/null 2>&1 || return 1
    t1=$EPOCHREALTIME
    echo $((10#${t1/./} - 10#${t0/./}))
}

BWRAP_ARGS=(--unshare-all --die-with-parent --new-session)
for d in /usr /etc /opt; do [[ -d $d ]] && BWRAP_ARGS+=(--ro-bind "$d" "$d"); done
for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
    if [[ -L $d ]]; then BWRAP_ARGS+=(--symlink "$(readlink "$d")" "$d")
    elif [[ -d $d ]]; then BWRAP_ARGS+=(--ro-bind "$d" "$d"); fi
done
BWRAP_ARGS+=(--proc /proc --dev /dev --tmpfs /tmp --tmpfs "$HOME" --bind "$WORKSPACE" "$WORKSPACE"
    --chdir "$WORKSPACE")
export BWRAP_ARGS_JSON
BWRAP_ARGS_JSON=$(printf '%s\n' "${BWRAP_ARGS[@]}" | awk 'BEGIN { printf "[" } { gsub(/"/, "\\\""); printf "%s\"%s\"", (NR > 1 ? "," : ""), $0 } END { printf "]" }')

start=$("$CLI" start --preset generic --network none --workspace "$WORKSPACE" --name "$SESSION" --json) ||
    { echo "exec_bench: sandbench-cli start failed" >&2; exit 1; }
SUPERVISOR=$(sed -n 's/.*"pid": *\([0-9]*\).*/\1/p' <<<"$start")

# 5. exec round trip vs a fresh bwrap, ABBA
for i in 1 2 3; do "$CLI" exec "$SESSION" -- /usr/bin/true || exit 1; bwrap "${BWRAP_ARGS[@]}" /usr/bin/true || exit 1; done
: >"$SCRATCH/exec" >"$SCRATCH/bwrap"
for ((r = 0; r < ROUNDS; r++)); do
    if ((r % 2)); then
        time_us bwrap "${BWRAP_ARGS[@]}" /usr/bin/true >>"$SCRATCH/bwrap" || exit 1
        time_us "$CLI" exec "$SESSION" -- /usr/bin/true >>"$SCRATCH/exec" || exit 1
    else
        time_us "$CLI" exec "$SESSION" -- /usr/bin/true >>"$SCRATCH/exec" || exit 1
        time_us bwrap "${BWRAP_ARGS[@]}" /usr/bin/true >>"$SCRATCH/bwrap" || exit 1
    fi
done
ratio=$(paste "$SCRATCH/exec" "$SCRATCH/bwrap" | awk '{ printf "%.6f\n", $1 / $2 }')
echo "RESULT exec n=$ROUNDS exec_us=$(median <"$SCRATCH/exec") bwrap_us=$(median <"$SCRATCH/bwrap")" \
    "ratio=$(median <<<"$ratio"),$(quantile 0.25 <<<"$ratio"),$(quantile 0.75 <<<"$ratio")"

# 5b. MCP run_command from the SDK client
if [[ -d $REPO/tests/js/node_modules/@modelcontextprotocol/sdk ]] && command -v node >/dev/null; then
    node "$REPO/tests/bench/mcp_bench.mjs" "$CLI" "$SESSION" "$ROUNDS" || exit 1
else
    echo "exec_bench: 5b skipped: no tests/js/node_modules (tests/js/run.sh --install-only)" >&2
fi

# 5c. 100 execs at once, the supervisor's memory meanwhile
peak=0
pids=()
for ((i = 0; i < 100; i++)); do "$CLI" exec "$SESSION" -- sleep 1 & pids+=($!); done
failed=0
while :; do
    rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$SUPERVISOR/status" 2>/dev/null)
    ((${rss:-0} > peak)) && peak=$rss
    running=0
    for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && running=1 && break; done
    ((running)) || break
    sleep 0.02
done
for p in "${pids[@]}"; do wait "$p" || ((failed++)); done
echo "RESULT parallel execs=100 failed=$failed supervisor_peak_kb=$peak"

# 6, 6b. The E2B-compatible API from the e2b SDK
if [[ -d $REPO/tests/js/node_modules/e2b ]] && command -v node >/dev/null; then
    node "$REPO/tests/bench/e2b_bench.mjs" "$CLI" "$ROUNDS" || exit 1
else
    echo "exec_bench: 6 skipped: no tests/js/node_modules (tests/js/run.sh --install-only)" >&2
fi
