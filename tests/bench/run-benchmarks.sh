#!/usr/bin/env bash
# Sandbench benchmarks: cold start against bubblewrap, per-exec overhead inside the sandbox,
# the supervisor's idle memory, transparent connections against direct ones and TLS through a
# secret's substitution against direct TLS (both when tests/test-network is built), and the
# terminal pane against bare libvterm. See BENCHMARKS.md for what each one measures.
#
# Usage: tests/bench/run-benchmarks.sh [--quick] [--write] [--user NAME | --no-user]
#
#   --quick     few repetitions (a smoke run of well under 30 s); figures are rough
#   --write     replace the figures section of BENCHMARKS.md with this run's table
#   --user NAME when run as root, also run every benchmark as NAME (default: sbtest if it exists)
#   --no-user   root only
#
# Builds nothing: the CLI is $SANDBENCH_BUILD_DIR/app/sandbench-cli (default ./build), the
# terminal benchmark $SANDBENCH_BUILD_DIR/tests/bench/terminal_bench, rows 7's and 10's network
# $SANDBENCH_BUILD_DIR/tests/test-network.
# Machines are shared and noisy, so every timing is a ratio against a reference measured in
# the same run, interleaved round by round (A,B then B,A), reported as median and spread.
# Exit status: 0 when every benchmark ran (targets met or not: timings are not assertions),
# 1 when one could not run at all, 2 on bad usage.
set -u -o pipefail
export LC_ALL=C # EPOCHREALTIME and awk must use '.' as the decimal separator

SELF=$(readlink -f "${BASH_SOURCE[0]}")
REPO=$(cd "$(dirname "$SELF")/../.." && pwd)

QUICK=0
WRITE=0
WORKER=0
BENCH_USER=
NO_USER=0
while (($#)); do
    case $1 in
    --quick) QUICK=1 ;;
    --write) WRITE=1 ;;
    --user) BENCH_USER=${2:?--user needs a name}; shift ;;
    --no-user) NO_USER=1 ;;
    --worker) WORKER=1 ;; # internal: run the benchmarks as the current user, print RESULT lines
    -h | --help) sed -n '2,20p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-benchmarks: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

BUILD_DIR=$(readlink -f "${SANDBENCH_BUILD_DIR:-./build}")
CLI="$BUILD_DIR/app/sandbench-cli"

# Repetitions. Each round runs every variant once; the first WARMUP rounds are discarded.
if ((QUICK)); then
    COLD_ROUNDS=10 EXEC_ROUNDS=3 EXEC_N=300 LAT_ROUNDS=3 LAT_N=200 RSS_ROUNDS=1 WARMUP=1
else
    COLD_ROUNDS=60 EXEC_ROUNDS=15 EXEC_N=1000 LAT_ROUNDS=11 LAT_N=500 RSS_ROUNDS=5 WARMUP=2
fi

note() { echo "run-benchmarks: $*" >&2; }

# ---------------------------------------------------------------------------------------------
# Statistics (awk over one number per line)

# quantile P (0..1) of the numbers on stdin, linear interpolation
quantile()
{
    sort -g | awk -v p="$1" '{ v[NR] = $1 } END {
        if (NR == 0) { print "nan"; exit }
        h = (NR - 1) * p + 1; lo = int(h); hi = (lo < NR) ? lo + 1 : lo
        printf "%.6g\n", v[lo] + (h - lo) * (v[hi] - v[lo]) }'
}

# "median p25 p75" of the numbers on stdin
summary()
{
    local data
    data=$(cat)
    echo "$(quantile 0.5 <<<"$data") $(quantile 0.25 <<<"$data") $(quantile 0.75 <<<"$data")"
}

# ---------------------------------------------------------------------------------------------
# Timing: bash's own clock, so no helper process is timed along with the command.

now_us() { local t=$EPOCHREALTIME; echo $((10#${t/./})); }

# time_us CMD… : runs CMD with stdio on /dev/null, prints its wall time in µs; fails with CMD
time_us()
{
    local t0 t1 rc
    t0=$EPOCHREALTIME
    "$@" </dev/null >/dev/null 2>&1
    rc=$?
    t1=$EPOCHREALTIME
    ((rc == 0)) || return "$rc"
    echo $((10#${t1/./} - 10#${t0/./}))
}

# interleave ROUNDS NAME… : each NAME is a function that runs one variant. Runs the variants
# once per round, forwards one round and backwards the next (ABBA…), and appends each variant's
# time to $SCRATCH/NAME.times, warm-up rounds excluded. Fails when any run fails.
interleave()
{
    local rounds=$1; shift
    local names=("$@") order r name t
    for name in "${names[@]}"; do : >"$SCRATCH/$name.times"; done
    for ((r = 0; r < WARMUP + rounds; r++)); do
        if ((r % 2)); then order=(); for ((i = ${#names[@]} - 1; i >= 0; i--)); do order+=("${names[i]}"); done
        else order=("${names[@]}"); fi
        for name in "${order[@]}"; do
            if ! t=$(time_us "$name"); then
                note "$name failed (round $r); rerun with output:"
                "$name" </dev/null >&2 2>&1 | tail -5 >&2
                return 1
            fi
            ((r >= WARMUP)) && echo "$t" >>"$SCRATCH/$name.times"
        done
    done
    return 0
}

# ---------------------------------------------------------------------------------------------
# The sandbox and its bubblewrap reference

sandbench() { "$CLI" run --preset generic --network none --workspace "$WORKSPACE" -- "$@"; }

BWRAP_ARGS=()
bwrap_args()
{
    BWRAP_ARGS=(--unshare-all --die-with-parent --new-session)
    local d link
    for d in /usr /etc /opt; do [[ -d $d ]] && BWRAP_ARGS+=(--ro-bind "$d" "$d"); done
    # The same system folders sandbench mounts (core/sandbox/Mounts.cpp kSystemFolders): symlinks
    # recreated, folders bound read-only.
    for d in /bin /sbin /lib /lib32 /lib64 /libx32; do
        if [[ -L $d ]]; then link=$(readlink "$d"); BWRAP_ARGS+=(--symlink "$link" "$d")
        elif [[ -d $d ]]; then BWRAP_ARGS+=(--ro-bind "$d" "$d"); fi
    done
    # bubblewrap 0.8 (Debian 12) has no --overlay: the workspace is a plain bind.
    BWRAP_ARGS+=(--proc /proc --dev /dev --tmpfs /tmp --tmpfs "$HOME"
        --bind "$WORKSPACE" "$WORKSPACE" --chdir "$WORKSPACE")
}
bwrap_run() { bwrap "${BWRAP_ARGS[@]}" "$@"; }

# ---------------------------------------------------------------------------------------------
# 1. Cold start of /usr/bin/true

cold_sandbench() { sandbench /usr/bin/true; }
cold_bwrap() { bwrap_run /usr/bin/true; }
# Diagnostic: the session folder (metadata, overlay upper and work dirs) on tmpfs, where fsync
# and the overlay's sync at unmount cost nothing. The gap to cold_sandbench is the price of
# keeping the session on a disk file system.
cold_sandbench_tmpfs() { XDG_STATE_HOME=$SHM_STATE sandbench /usr/bin/true; }

bench_cold()
{
    local variants=(cold_sandbench cold_bwrap)
    [[ -n $SHM_STATE ]] && variants+=(cold_sandbench_tmpfs)
    interleave "$COLD_ROUNDS" "${variants[@]}" || return 1
    local s=$SCRATCH ratios sb bw out
    ratios=$(paste $s/cold_sandbench.times $s/cold_bwrap.times | awk '{ printf "%.6f\n", $1 / $2 }')
    sb=$(summary <$s/cold_sandbench.times)
    bw=$(summary <$s/cold_bwrap.times)
    out="RESULT cold n=$COLD_ROUNDS ratio=$(summary <<<"$ratios" | tr ' ' ,) sandbench_us=${sb// /,} bwrap_us=${bw// /,}"
    if [[ -n $SHM_STATE ]]; then
        ratios=$(paste $s/cold_sandbench_tmpfs.times $s/cold_bwrap.times | awk '{ printf "%.6f\n", $1 / $2 }')
        sb=$(summary <$s/cold_sandbench_tmpfs.times)
        out+=" tmpfs_ratio=$(summary <<<"$ratios" | tr ' ' ,) tmpfs_us=${sb// /,}"
    fi
    echo "$out"
}

# ---------------------------------------------------------------------------------------------
# 2. Per-exec overhead: a loop of /usr/bin/true, N and 0 iterations, in sandbench, in bwrap and
# on the host. The target is against the floor (2d, below) measured in the same rounds: what any
# supervisor of every exec costs on this machine. Issue 3's reference is the host (what the
# user's loop costs without any sandbox); bwrap (the isolation alone) is reported.

loop_script() { echo "for i in \$(seq $1); do /usr/bin/true; done"; }
exec_sandbox_n() { sandbench /bin/bash -c "$(loop_script "$EXEC_N")"; }
exec_sandbox_0() { sandbench /bin/bash -c "$(loop_script 0)"; }
exec_bwrap_n() { bwrap_run /bin/bash -c "$(loop_script "$EXEC_N")"; }
exec_bwrap_0() { bwrap_run /bin/bash -c "$(loop_script 0)"; }
exec_host_n() { /bin/bash -c "$(loop_script "$EXEC_N")"; } # the worker's cwd is the workspace
exec_host_0() { /bin/bash -c "$(loop_script 0)"; }
# The floor under row 2: the same loop on the host under a bare exec notifier (exec_floor.c),
# which stops and answers each exec as Sandbench's supervisor does and does nothing else; the
# _cwd variant also reads each exec's working folder, as Sandbench does for its record.
FLOOR_BIN="$BUILD_DIR/tests/bench/exec_floor"
exec_floor_n() { "$FLOOR_BIN" /bin/bash -c "$(loop_script "$EXEC_N")"; }
exec_floor_0() { "$FLOOR_BIN" /bin/bash -c "$(loop_script 0)"; }
exec_floor_cwd_n() { "$FLOOR_BIN" --cwd /bin/bash -c "$(loop_script "$EXEC_N")"; }
exec_floor_cwd_0() { "$FLOOR_BIN" --cwd /bin/bash -c "$(loop_script 0)"; }

bench_exec()
{
    local variants=(exec_sandbox_n exec_sandbox_0 exec_bwrap_n exec_bwrap_0 exec_host_n exec_host_0)
    [[ -x $FLOOR_BIN ]] && variants+=(exec_floor_n exec_floor_0 exec_floor_cwd_n exec_floor_cwd_0)
    interleave "$EXEC_ROUNDS" "${variants[@]}" || return 1
    local s=$SCRATCH
    # Per round: (sandbox(N) - sandbox(0)) / (ref(N) - ref(0)), i.e. per-exec cost only.
    per_exec() { paste "$s/$1_n.times" "$s/$1_0.times" | awk -v n="$EXEC_N" '{ printf "%.1f\n", ($1 - $2) / n }'; }
    per_exec exec_sandbox >"$s/pe_sandbox"
    per_exec exec_bwrap >"$s/pe_bwrap"
    per_exec exec_host >"$s/pe_host"
    local host_ratio bwrap_ratio
    host_ratio=$(paste "$s/pe_sandbox" "$s/pe_host" | awk '{ printf "%.6f\n", $1 / $2 }')
    bwrap_ratio=$(paste "$s/pe_sandbox" "$s/pe_bwrap" | awk '{ printf "%.6f\n", $1 / $2 }')
    echo "RESULT exec n=$EXEC_ROUNDS loop=$EXEC_N ratio=$(summary <<<"$host_ratio" | tr ' ' ,)" \
        "bwrap_ratio=$(summary <<<"$bwrap_ratio" | tr ' ' ,)" \
        "sandbox_per_exec_us=$(summary <"$s/pe_sandbox" | tr ' ' ,)" \
        "bwrap_per_exec_us=$(summary <"$s/pe_bwrap" | tr ' ' ,)" \
        "host_per_exec_us=$(summary <"$s/pe_host" | tr ' ' ,)" \
        "sandbox_fixed_us=$(summary <$s/exec_sandbox_0.times | tr ' ' ,)" \
        "host_fixed_us=$(summary <$s/exec_host_0.times | tr ' ' ,)"
    [[ -x $FLOOR_BIN ]] || { note "no exec_floor at $FLOOR_BIN: the floor (2d) skipped"; return 0; }
    local v
    for v in floor floor_cwd; do
        per_exec "exec_$v" >"$s/pe_$v"
        # ratio: the floor against the host; sandbox_ratio: Sandbench against the floor (row 2's
        # target). Both per round (line r of each file is round r), then median and spread.
        echo "RESULT exec_$v ratio=$(paste "$s/pe_$v" "$s/pe_host" | awk '{ printf "%.6f\n", $1 / $2 }' | summary | tr ' ' ,)" \
            "sandbox_ratio=$(paste "$s/pe_sandbox" "$s/pe_$v" | awk '{ printf "%.6f\n", $1 / $2 }' | summary | tr ' ' ,)" \
            "per_exec_us=$(summary <"$s/pe_$v" | tr ' ' ,)"
    done
}

# 2c. One exec alone, from execve() to the new program's main(): tests/bench/exec_latency
# (static, so no dynamic loading is timed) execs itself LAT_N times and prints the median. Run
# in sandbench, bwrap and on the host, interleaved; the added time per exec is the difference
# of the medians, round by round.
LATENCY_BIN="$BUILD_DIR/tests/bench/exec_latency"
lat_sandbox() { sandbench ./exec_latency "$LAT_N"; }
lat_bwrap() { bwrap_run ./exec_latency "$LAT_N"; }
lat_host() { ./exec_latency "$LAT_N"; }
lat_floor() { "$FLOOR_BIN" ./exec_latency "$LAT_N"; }
lat_floor_cwd() { "$FLOOR_BIN" --cwd ./exec_latency "$LAT_N"; }
# 2f. The same while the command prints lines as fast as a shell can, as a chatty build does:
# the supervisor relays and records each line while the execs keep coming. Its stderr goes to
# /dev/null in every variant (bwrap's straight there; Sandbench's through the supervisor).
chatty_script() { echo "(i=0; while :; do echo \"compiling unit \$((i++))\" >&2; done) & y=\$!; ./exec_latency $LAT_N; kill \$y"; }
lat_chatty_sandbox() { sandbench /bin/bash -c "$(chatty_script)"; }
lat_chatty_bwrap() { bwrap_run /bin/bash -c "$(chatty_script)"; }

bench_latency()
{
    if [[ ! -x $LATENCY_BIN ]]; then
        note "no exec_latency at $LATENCY_BIN (cmake --build … --target exec_latency): 2c skipped"
        return 0
    fi
    cp "$LATENCY_BIN" "$WORKSPACE/exec_latency" || return 1
    local names=(lat_sandbox lat_bwrap lat_host lat_chatty_sandbox lat_chatty_bwrap) r i name out
    [[ -x $FLOOR_BIN ]] && names+=(lat_floor lat_floor_cwd)
    local count=${#names[@]}
    for name in "${names[@]}"; do : >"$SCRATCH/$name.us"; done
    for ((r = 0; r < WARMUP + LAT_ROUNDS; r++)); do
        for ((i = 0; i < count; i++)); do
            name=${names[r % 2 ? count - 1 - i : i]}
            out=$("$name" </dev/null 2>/dev/null) || { note "$name failed"; return 1; }
            ((r >= WARMUP)) && echo "${out%% *}" >>"$SCRATCH/$name.us"
        done
    done
    rm -f "$WORKSPACE/exec_latency"
    local s=$SCRATCH
    echo "RESULT latency n=$LAT_ROUNDS execs=$LAT_N" \
        "added_bwrap_us=$(paste $s/lat_sandbox.us $s/lat_bwrap.us | awk '{ print $1 - $2 }' | summary | tr ' ' ,)" \
        "added_host_us=$(paste $s/lat_sandbox.us $s/lat_host.us | awk '{ print $1 - $2 }' | summary | tr ' ' ,)" \
        "sandbox_us=$(summary <$s/lat_sandbox.us | tr ' ' ,) bwrap_us=$(summary <$s/lat_bwrap.us | tr ' ' ,)" \
        "host_us=$(summary <$s/lat_host.us | tr ' ' ,)"
    echo "RESULT latency_chatty" \
        "added_bwrap_us=$(paste $s/lat_chatty_sandbox.us $s/lat_chatty_bwrap.us | awk '{ print $1 - $2 }' | summary | tr ' ' ,)" \
        "sandbox_us=$(summary <$s/lat_chatty_sandbox.us | tr ' ' ,) bwrap_us=$(summary <$s/lat_chatty_bwrap.us | tr ' ' ,)"
    [[ -x $FLOOR_BIN ]] || return 0
    local v
    for v in floor floor_cwd; do
        echo "RESULT latency_$v added_host_us=$(paste $s/lat_$v.us $s/lat_host.us | awk '{ print $1 - $2 }' | summary | tr ' ' ,)" \
            "us=$(summary <$s/lat_$v.us | tr ' ' ,)"
    done
}

# ---------------------------------------------------------------------------------------------
# 3. Idle memory: the supervisor (the CLI process, parent of the sandbox's init) and init,
# with bubblewrap's outer process and its pid-1 process as the reference.

rss_kb() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status" 2>/dev/null; }
first_child() { local c; c=$(cat "/proc/$1/task/$1/children" 2>/dev/null); c=${c%% *}; echo "${c//[!0-9]/}"; }

# rss_sample TAG NAME CMD… : starts the program CMD (which runs `sleep 5`) in the background,
# reads the memory of it and its first child after 1 s, then stops it. CMD must be a program,
# not a function, so that $! is the program itself and not a subshell.
rss_sample()
{
    local tag=$1 comm=$2; shift 2
    "$@" </dev/null >/dev/null 2>&1 &
    local outer=$! inner
    sleep 1
    if [[ $(cat "/proc/$outer/comm" 2>/dev/null) != "$comm" ]]; then
        note "$tag: process $outer is not $comm"
        kill -TERM "$outer" 2>/dev/null; wait "$outer" 2>/dev/null
        return 1
    fi
    inner=$(first_child "$outer")
    local outer_rss outer_anon inner_rss
    outer_rss=$(rss_kb "$outer" VmRSS) outer_anon=$(rss_kb "$outer" RssAnon)
    [[ -n $inner ]] && inner_rss=$(rss_kb "$inner" VmRSS)
    kill -TERM "$outer" 2>/dev/null
    wait "$outer" 2>/dev/null
    if [[ -z $outer_rss || -z ${inner_rss:-} ]]; then
        note "$tag: could not find the processes to measure"
        return 1
    fi
    echo "$outer_rss" >>"$SCRATCH/${tag}_outer.kb"
    echo "$outer_anon" >>"$SCRATCH/${tag}_outer_anon.kb"
    echo "$inner_rss" >>"$SCRATCH/${tag}_inner.kb"
}

bench_rss()
{
    local r
    rm -f "$SCRATCH"/*.kb
    for ((r = 0; r < RSS_ROUNDS; r++)); do
        rss_sample sb sandbench-cli "$CLI" run --preset generic --network none \
            --workspace "$WORKSPACE" -- /bin/sleep 5 || return 1
        rss_sample bw bwrap bwrap "${BWRAP_ARGS[@]}" /bin/sleep 5 || return 1
    done
    local f out="RESULT rss n=$RSS_ROUNDS"
    for f in sb_outer sb_outer_anon sb_inner bw_outer bw_inner; do
        out+=" ${f}_kb=$(summary <"$SCRATCH/$f.kb" | tr ' ' ,)"
    done
    echo "$out"
}

# ---------------------------------------------------------------------------------------------
# Rows 7 and 10: Python benchmarks inside test-network (tests/probe), which print RESULT lines.
# 7. Transparent connections (issue 34): tests/bench/transparent_bench.py, a session's
# redirected connections and lookups against the same client run directly there.
# 10. Secrets (issue 38): tests/bench/secrets_bench.py, new TLS connections and a large response
# through the proxy's termination for a secret's host, against the same client talking TLS to
# the same server directly, the plain relay, and a bare TLS-terminating relay (tls_floor.c).

# in_test_network SCRIPT ROWS: runs tests/bench/SCRIPT.py, prints its RESULT lines
in_test_network()
{
    if [[ ! -x $BUILD_DIR/tests/test-network ]]; then
        note "no test-network at $BUILD_DIR/tests (cmake --build … --target test-network): $2 skipped"
        return 0
    fi
    local out
    if ! out=$(SANDBENCH_BUILD_DIR=$BUILD_DIR python3 "$REPO/tests/bench/$1.py" --result \
        $( ((QUICK)) && echo --quick) </dev/null 2>&1); then
        note "$1 failed:"
        tail -5 <<<"$out" >&2
        return 1
    fi
    grep '^RESULT ' <<<"$out"
}
bench_transparent() { in_test_network transparent_bench "row 7"; }
bench_secrets() { in_test_network secrets_bench "rows 10, 10b"; }

# ---------------------------------------------------------------------------------------------

worker()
{
    SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sandbench-bench.XXXXXX") || exit 1
    SHM_STATE=
    [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] &&
        SHM_STATE=$(mktemp -d /dev/shm/sandbench-bench.XXXXXX 2>/dev/null)
    # Removed by the driver once every user has run: removing thousands of session files here
    # would slow the next user's sandboxes for minutes on ext4 without a journal, which skips
    # inodes deleted in the last 60-360 s when it allocates new ones (docs/benchmarks-log.md,
    # "Findings").
    echo "RESULT scratch dirs=$SCRATCH${SHM_STATE:+,$SHM_STATE}"
    WORKSPACE=$SCRATCH/workspace
    mkdir -p "$WORKSPACE" "$SCRATCH/state"
    echo "a small project" >"$WORKSPACE/README"
    cd "$WORKSPACE" || exit 1
    export XDG_STATE_HOME=$SCRATCH/state # sessions land here and go with the scratch folder
    export XDG_DATA_HOME=$SCRATCH/data   # and their recordings, not into the user's own
    # Control sockets go to a tmpfs where there is one, as /run/user/UID is on a desktop: on
    # this disk, each socket is an inode made and deleted per session (docs/benchmarks-log.md,
    # "Findings").
    export XDG_RUNTIME_DIR=${SHM_STATE:-$SCRATCH}/runtime
    mkdir -p -m 0700 "$XDG_RUNTIME_DIR"
    bwrap_args

    local failed=0
    if ! sandbench /usr/bin/true </dev/null >/dev/null 2>&1; then
        note "sandbench-cli cannot run a sandbox as $(id -un):"
        sandbench /usr/bin/true </dev/null 2>&1 | tail -5 >&2
        echo "RESULT failed what=sandbench"
        return 1
    fi
    if ! bwrap_run /usr/bin/true </dev/null >/dev/null 2>&1; then
        note "bwrap cannot run as $(id -un):"
        bwrap_run /usr/bin/true </dev/null 2>&1 | tail -5 >&2
        echo "RESULT failed what=bwrap"
        return 1
    fi
    bench_cold || { echo "RESULT failed what=cold"; failed=1; }
    bench_exec || { echo "RESULT failed what=exec"; failed=1; }
    bench_latency || { echo "RESULT failed what=latency"; failed=1; }
    bench_rss || { echo "RESULT failed what=rss"; failed=1; }
    bench_transparent || { echo "RESULT failed what=transparent"; failed=1; }
    bench_secrets || { echo "RESULT failed what=secrets"; failed=1; }
    return $failed
}

if ((WORKER)); then
    worker
    exit $?
fi

# ---------------------------------------------------------------------------------------------
# 4. Terminal pane: TerminalWidget fed a flood of coloured output, against libvterm parsing the
# same bytes alone. terminal_bench interleaves its reference and measured runs itself (A,B then
# B,A), on Qt's offscreen platform, and prints a RESULT line. Run once: the user does not matter.

TERMINAL_BENCH="$BUILD_DIR/tests/bench/terminal_bench"
bench_terminal()
{
    local out
    if [[ ! -x $TERMINAL_BENCH ]]; then
        note "no terminal_bench at $TERMINAL_BENCH (cmake --build … --target terminal_bench)"
        echo "RESULT failed what=terminal"
        return 1
    fi
    if ! out=$(QT_QPA_PLATFORM=offscreen "$TERMINAL_BENCH" $( ((QUICK)) && echo --quick) 2>/dev/null); then
        note "terminal_bench failed"
        echo "RESULT failed what=terminal"
        return 1
    fi
    grep '^RESULT terminal ' <<<"$out"
}

# ---------------------------------------------------------------------------------------------
# Driver: run the worker as ourselves and, as root, as an unprivileged user; print the table.

for tool in bwrap awk paste sort; do
    command -v "$tool" >/dev/null || { note "$tool is missing (Debian: apt-get install bubblewrap)"; exit 1; }
done
[[ -x $CLI ]] || { note "no sandbench-cli at $CLI (set SANDBENCH_BUILD_DIR)"; exit 1; }

if ((EUID == 0 && !NO_USER)) && [[ -z $BENCH_USER ]] && id sbtest >/dev/null 2>&1; then
    BENCH_USER=sbtest
fi
((NO_USER || EUID != 0)) && BENCH_USER=

RUNS=("$(id -un)")
[[ -n $BENCH_USER ]] && RUNS+=("$BENCH_USER")

status=0
declare -A OUT
SCRATCH_DIRS=()
# (chmod: a supervisor the RSS benchmark kills leaves overlayfs's work/work at mode 000.)
trap 'chmod -R u+rwX "${SCRATCH_DIRS[@]}" 2>/dev/null; rm -rf "${SCRATCH_DIRS[@]}"' EXIT
for who in "${RUNS[@]}"; do
    note "running as $who ($( ((QUICK)) && echo quick || echo full) mode)…"
    if [[ $who == "$(id -un)" ]]; then
        OUT[$who]=$("$SELF" --worker $( ((QUICK)) && echo --quick)) || status=1
    else
        # A scratch folder the user owns; the build dir must be readable by it.
        OUT[$who]=$(runuser -u "$who" -- env -i PATH="$PATH" HOME="$(getent passwd "$who" | cut -d: -f6)" \
            SANDBENCH_BUILD_DIR="$BUILD_DIR" TMPDIR=/tmp \
            "$SELF" --worker $( ((QUICK)) && echo --quick)) || status=1
    fi
    IFS=, read -r -a dirs <<<"$(sed -n 's/^RESULT scratch dirs=//p' <<<"${OUT[$who]}")"
    SCRATCH_DIRS+=("${dirs[@]}")
done
note "terminal pane benchmark ($( ((QUICK)) && echo quick || echo full) mode)…"
TERMINAL_OUT=$(bench_terminal) || status=1

# field RESULT-LINE KEY [INDEX]: value of KEY=a,b,c (INDEX 1-based, default 1)
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1" | cut -d, -f"${3:-1}"; }
ms() { awk -v u="$1" 'BEGIN { if (u == "") print "-"; else printf "%.1f", u / 1000 }'; }
us() { awk -v u="$1" 'BEGIN { if (u == "") print "-"; else printf "%.0f", u }'; }
mb() { awk -v k="$1" 'BEGIN { if (k == "") print "-"; else printf "%.1f", k / 1024 }'; }
x() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%.2f×", v }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "") print "did not run"; else print (v <= t) ? "met" : "NOT met" }'; }
verdict_ge() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "") print "did not run"; else print (v >= t) ? "met" : "NOT met" }'; }
num() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%.1f", v }'; }
plus() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%+.1f", v }'; } # +3.0, -7.0

table()
{
    local kernel
    kernel=$(uname -r)
    echo "Run of $(date -u +%Y-%m-%d) on $(nproc) cores, kernel $kernel, $(bwrap --version), $( ((QUICK)) && echo '**quick mode (few repetitions, rough figures)**' || echo 'full mode')."
    echo "Ratios: median of per-round ratios, [p25–p75] in brackets."
    echo
    echo "| benchmark | user | sandbench | reference | ratio / value | target | |"
    echo "| --- | --- | --- | --- | --- | --- | --- |"
    local who line r
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT cold ' <<<"${OUT[$who]}")
        r=$(field "$line" ratio)
        echo "| 1. cold start \`true\` (n=$(field "$line" n)) | $who | $(ms "$(field "$line" sandbench_us)") ms | bwrap $(ms "$(field "$line" bwrap_us)") ms | $(x "$r") [$(x "$(field "$line" ratio 2)")–$(x "$(field "$line" ratio 3)")] | ≤ 1.5× (stretch ≤ 1.0×) | $(verdict "$r" 1.5) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT cold ' <<<"${OUT[$who]}")
        r=$(field "$line" tmpfs_ratio)
        [[ -n $r ]] || continue
        echo "| 1b. same, session folder on tmpfs (diagnostic) | $who | $(ms "$(field "$line" tmpfs_us)") ms | bwrap (as above) | $(x "$r") [$(x "$(field "$line" tmpfs_ratio 2)")–$(x "$(field "$line" tmpfs_ratio 3)")] | — | |"
    done
    local bare cwd
    for who in "${RUNS[@]}"; do
        # Against the bare notifier of row 2d, in the same rounds: the median of the per-round
        # ratios of the per-exec times (sandbox_ratio of the exec_floor lines). The verdict is on
        # the bare floor; the floor that also reads the working folder is shown beside it.
        line=$(grep '^RESULT exec ' <<<"${OUT[$who]}")
        bare=$(grep '^RESULT exec_floor ' <<<"${OUT[$who]}")
        cwd=$(grep '^RESULT exec_floor_cwd ' <<<"${OUT[$who]}")
        if [[ -z $bare || -z $cwd ]]; then
            echo "| 2. per-exec, loop of $(field "$line" loop), vs its floor (2d) | $who | $(us "$(field "$line" sandbox_per_exec_us)") µs/exec | no exec_floor: floor not measured | - | ≤ 1.03× | did not run |"
            continue
        fi
        r=$(field "$bare" sandbox_ratio)
        echo "| 2. per-exec, loop of $(field "$line" loop), vs its floor (2d) (n=$(field "$line" n)) | $who | $(us "$(field "$line" sandbox_per_exec_us)") µs/exec | floor $(us "$(field "$bare" per_exec_us)") µs/exec; reading the working folder too: $(us "$(field "$cwd" per_exec_us)") | $(x "$r") [$(x "$(field "$bare" sandbox_ratio 2)")–$(x "$(field "$bare" sandbox_ratio 3)")]; $(x "$(field "$cwd" sandbox_ratio)") [$(x "$(field "$cwd" sandbox_ratio 2)")–$(x "$(field "$cwd" sandbox_ratio 3)")] | ≤ 1.03× | $(verdict "$r" 1.03) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT exec ' <<<"${OUT[$who]}")
        r=$(field "$line" bwrap_ratio)
        echo "| 2. per-exec, loop of $(field "$line" loop), vs bwrap | $who | $(us "$(field "$line" sandbox_per_exec_us)") µs/exec | bwrap $(us "$(field "$line" bwrap_per_exec_us)") µs/exec | $(x "$r") [$(x "$(field "$line" bwrap_ratio 2)")–$(x "$(field "$line" bwrap_ratio 3)")] | (reported) | |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT exec ' <<<"${OUT[$who]}")
        r=$(field "$line" ratio)
        echo "| 2. per-exec, loop of $(field "$line" loop), vs host, default-allow | $who | $(us "$(field "$line" sandbox_per_exec_us)") µs/exec | host $(us "$(field "$line" host_per_exec_us)") µs/exec | $(x "$r") [$(x "$(field "$line" ratio 2)")–$(x "$(field "$line" ratio 3)")] | ≤ 1.15× | $(verdict "$r" 1.15) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT latency ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(field "$line" added_bwrap_us)
        echo "| 2c. one exec (execve → main), median added vs bwrap (n=$(field "$line" n)×$(field "$line" execs)) | $who | $(num "$(field "$line" sandbox_us)") µs | bwrap $(num "$(field "$line" bwrap_us)") µs, host $(num "$(field "$line" host_us)") µs | $(plus "$r") µs [$(num "$(field "$line" added_bwrap_us 2)")–$(num "$(field "$line" added_bwrap_us 3)")] | ≤ 50 µs | $(verdict "$r" 50) |"
    done
    for who in "${RUNS[@]}"; do
        bare=$(grep '^RESULT exec_floor ' <<<"${OUT[$who]}")
        cwd=$(grep '^RESULT exec_floor_cwd ' <<<"${OUT[$who]}")
        [[ -n $bare && -n $cwd ]] || continue
        line=$(grep '^RESULT exec ' <<<"${OUT[$who]}")
        echo "| 2d. floor of row 2: a bare exec notifier, loop of $(field "$line" loop), vs host | $who | $(us "$(field "$bare" per_exec_us)") µs/exec; reading the working folder too: $(us "$(field "$cwd" per_exec_us)") | host $(us "$(field "$line" host_per_exec_us)") µs/exec | $(x "$(field "$bare" ratio)") [$(x "$(field "$bare" ratio 2)")–$(x "$(field "$bare" ratio 3)")]; $(x "$(field "$cwd" ratio)") [$(x "$(field "$cwd" ratio 2)")–$(x "$(field "$cwd" ratio 3)")] | (reference) | |"
    done
    for who in "${RUNS[@]}"; do
        bare=$(grep '^RESULT latency_floor ' <<<"${OUT[$who]}")
        cwd=$(grep '^RESULT latency_floor_cwd ' <<<"${OUT[$who]}")
        [[ -n $bare && -n $cwd ]] || continue
        echo "| 2e. floor of row 2c: a bare exec notifier, one exec added vs host | $who | $(num "$(field "$bare" us)") µs; reading the working folder too: $(num "$(field "$cwd" us)") µs | host (as in 2c) | $(plus "$(field "$bare" added_host_us)") µs [$(num "$(field "$bare" added_host_us 2)")–$(num "$(field "$bare" added_host_us 3)")]; $(plus "$(field "$cwd" added_host_us)") µs [$(num "$(field "$cwd" added_host_us 2)")–$(num "$(field "$cwd" added_host_us 3)")] | (reference) | |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT latency_chatty ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        echo "| 2f. one exec as in 2c, while the command prints lines as fast as a shell can | $who | $(num "$(field "$line" sandbox_us)") µs | bwrap $(num "$(field "$line" bwrap_us)") µs | $(plus "$(field "$line" added_bwrap_us)") µs [$(num "$(field "$line" added_bwrap_us 2)")–$(num "$(field "$line" added_bwrap_us 3)")] | (reported) | |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT exec ' <<<"${OUT[$who]}")
        echo "| 2b. fixed cost, loop of 0 | $who | $(ms "$(field "$line" sandbox_fixed_us)") ms | host bash $(ms "$(field "$line" host_fixed_us)") ms | — | (reported) | |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT rss ' <<<"${OUT[$who]}")
        r=$(field "$line" sb_outer_kb)
        echo "| 3. supervisor VmRSS, idle (n=$(field "$line" n)) | $who | $(mb "$r") MB (anon $(mb "$(field "$line" sb_outer_anon_kb)") MB) | bwrap outer $(mb "$(field "$line" bw_outer_kb)") MB | $(mb "$r") MB | ≤ 10 MB | $(verdict "$(mb "$r")" 10) |"
        echo "| 3b. sandbox init VmRSS | $who | $(mb "$(field "$line" sb_inner_kb)") MB | bwrap pid 1 $(mb "$(field "$line" bw_inner_kb)") MB | — | (reported) | |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT transparent ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(field "$line" added_p50_us)
        echo "| 7. transparent connect + first byte, added p50; p90 (n=$(field "$line" n)×$(field "$line" conns)) | $who | p50 $(us "$(field "$line" first_p50_us)") µs, p90 $(us "$(field "$line" first_p90_us)") µs | direct p50 $(us "$(field "$line" direct_p50_us)") µs, p90 $(us "$(field "$line" direct_p90_us)") µs | $(plus "$r") µs [$(num "$(field "$line" added_p50_us 2)")–$(num "$(field "$line" added_p50_us 3)")]; $(plus "$(field "$line" added_p90_us)") µs | ≤ 300 µs (p50) | $(verdict "$r" 300) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT transparent_bulk ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(field "$line" ratio)
        echo "| 7b. transparent bulk, $(field "$line" mib) MiB (n=$(field "$line" n)) | $who | $(us "$(field "$line" mib_s)") MiB/s | direct $(us "$(field "$line" direct_mib_s)") MiB/s; a bare splice() relay (floor) $(us "$(field "$line" floor_mib_s)") MiB/s, $(x "$(field "$line" floor_ratio)") | $(x "$r") [$(x "$(field "$line" ratio 2)")–$(x "$(field "$line" ratio 3)")] | ≥ 0.8× | $(verdict_ge "$r" 0.8) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT transparent_dns ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(field "$line" p50_us)
        echo "| 7c. lookup through the sandbox's resolver, p50 (n=$(field "$line" n)×$(field "$line" lookups)) | $who | $(us "$r") µs | /etc/hosts directly $(us "$(field "$line" direct_p50_us)") µs | $(plus "$(field "$line" added_us)") µs [$(num "$(field "$line" added_us 2)")–$(num "$(field "$line" added_us 3)")] | ≤ 1 ms | $(verdict "$r" 1000) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT transparent_held ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(awk -v a="$(field "$line" during_kb)" -v b="$(field "$line" before_kb)" 'BEGIN { print a - b }')
        echo "| 7d. $(field "$line" conns) transparent connections held, supervisor VmRSS growth | $who | $(mb "$(field "$line" before_kb)") → $(mb "$(field "$line" during_kb)") MB (opened in $(field "$line" opened_ms) ms) | — | +$(mb "$r") MB | ≤ 20 MB | $(verdict "$(mb "$r")" 20) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT secrets ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(field "$line" added_p50_us)
        echo "| 10. new TLS connection through substitution (connect, handshake, request, first byte), added p50; p90 (n=$(field "$line" n)×$(field "$line" conns)) | $who | p50 $(us "$(field "$line" p50_us)") µs, p90 $(us "$(field "$line" p90_us)") µs | direct p50 $(us "$(field "$line" direct_p50_us)") µs, p90 $(us "$(field "$line" direct_p90_us)") µs; the plain relay (floor) added $(plus "$(field "$line" relay_added_p50_us)") µs, p90 $(plus "$(field "$line" relay_added_p90_us)") µs; a bare TLS-terminating relay (tls_floor.c, the floor of termination) $(plus "$(field "$line" tls_relay_added_p50_us)") µs, p90 $(plus "$(field "$line" tls_relay_added_p90_us)") µs | $(plus "$r") µs [$(num "$(field "$line" added_p50_us 2)")–$(num "$(field "$line" added_p50_us 3)")]; $(plus "$(field "$line" added_p90_us)") µs | ≤ 2 ms (p50) | $(verdict "$r" 2000) |"
    done
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT secrets_bulk ' <<<"${OUT[$who]}")
        [[ -n $line ]] || continue
        r=$(field "$line" ratio)
        echo "| 10b. a $(field "$line" mib) MiB TLS response through substitution (n=$(field "$line" n)) | $who | $(us "$(field "$line" mib_s)") MiB/s | direct $(us "$(field "$line" direct_mib_s)") MiB/s; the plain relay (floor) $(us "$(field "$line" relay_mib_s)") MiB/s, $(x "$(field "$line" relay_ratio)"); a bare TLS-terminating relay $(us "$(field "$line" tls_relay_mib_s)") MiB/s, $(x "$(field "$line" tls_relay_ratio)") | $(x "$r") [$(x "$(field "$line" ratio 2)")–$(x "$(field "$line" ratio 3)")] | ≥ 0.8× | $(verdict_ge "$r" 0.8) |"
    done
    line=$(grep '^RESULT terminal ' <<<"$TERMINAL_OUT")
    r=$(field "$line" ratio)
    echo "| 4. terminal pane, $(field "$line" mb) MB coloured output (n=$(field "$line" n)) | $(id -un) | $(num "$(field "$line" widget_mbps)") MB/s | libvterm alone $(num "$(field "$line" raw_mbps)") MB/s | $(x "$r") [$(x "$(field "$line" ratio 2)")–$(x "$(field "$line" ratio 3)")] | ≥ 0.5× | $(verdict_ge "$r" 0.5) |"
    local stall
    stall=$(awk -v a="$(field "$line" late_max_ms)" -v b="$(field "$line" event_max_ms)" 'BEGIN { if (a == "") print ""; else print (a > b) ? a : b }')
    echo "| 4b. terminal pane, longest event-loop stall meanwhile | $(id -un) | $(num "$stall") ms (the longest event used $(num "$(field "$line" event_cpu_max_ms)") ms of CPU) | — | $(num "$stall") ms | ≤ 50 ms | $(verdict "$stall" 50) |"
}

TABLE=$(table)
echo
echo "$TABLE"
for who in "${RUNS[@]}"; do
    grep -q '^RESULT failed' <<<"${OUT[$who]}" && { note "as $who: $(grep '^RESULT failed' <<<"${OUT[$who]}" | tr '\n' ' ')"; status=1; }
done
grep -q '^RESULT failed' <<<"$TERMINAL_OUT" && { note "terminal pane benchmark did not run"; status=1; }

if ((WRITE)); then
    doc=$REPO/BENCHMARKS.md
    begin='<!-- figures:begin (written by tests/bench/run-benchmarks.sh --write) -->'
    end='<!-- figures:end -->'
    if ! grep -qF "$begin" "$doc" 2>/dev/null || ! grep -qF "$end" "$doc"; then
        note "$doc has no figures markers; not written"
        status=1
    else
        tmp=$(mktemp)
        TABLE=$TABLE awk -v b="$begin" -v e="$end" '
            $0 == e { skip = 0 }
            !skip { print }
            $0 == b { print ENVIRON["TABLE"]; skip = 1 }' "$doc" >"$tmp"
        cat "$tmp" >"$doc" && rm -f "$tmp"
        note "figures written to $doc"
    fi
fi
exit $status
