#!/usr/bin/env bash
# Sandbench benchmarks: cold start against bubblewrap, per-exec overhead inside the sandbox,
# and the supervisor's idle memory. See BENCHMARKS.md for what each one measures.
#
# Usage: tests/bench/run-benchmarks.sh [--quick] [--write] [--user NAME | --no-user]
#
#   --quick     few repetitions (a smoke run of well under 30 s); figures are rough
#   --write     replace the figures section of BENCHMARKS.md with this run's table
#   --user NAME when run as root, also run every benchmark as NAME (default: sbtest if it exists)
#   --no-user   root only
#
# Builds nothing: the CLI is $SANDBENCH_BUILD_DIR/app/sandbench-cli (default ./build).
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
    -h | --help) sed -n '2,17p' "$SELF" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "run-benchmarks: unknown option $1" >&2; exit 2 ;;
    esac
    shift
done

BUILD_DIR=$(readlink -f "${SANDBENCH_BUILD_DIR:-./build}")
CLI="$BUILD_DIR/app/sandbench-cli"

# Repetitions. Each round runs every variant once; the first WARMUP rounds are discarded.
if ((QUICK)); then
    COLD_ROUNDS=10 EXEC_ROUNDS=3 EXEC_N=300 RSS_ROUNDS=1 WARMUP=1
else
    COLD_ROUNDS=60 EXEC_ROUNDS=15 EXEC_N=1000 RSS_ROUNDS=5 WARMUP=2
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
    # The same system folders sandbench mounts (core/Mounts.cpp kSystemFolders): symlinks
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
# 2. Per-exec overhead: a loop of /usr/bin/true, N and 0 iterations, sandboxed and not

loop_script() { echo "for i in \$(seq $1); do /usr/bin/true; done"; }
exec_sandbox_n() { sandbench /bin/bash -c "$(loop_script "$EXEC_N")"; }
exec_sandbox_0() { sandbench /bin/bash -c "$(loop_script 0)"; }
exec_host_n() { /bin/bash -c "$(loop_script "$EXEC_N")"; } # the worker's cwd is the workspace
exec_host_0() { /bin/bash -c "$(loop_script 0)"; }

bench_exec()
{
    interleave "$EXEC_ROUNDS" exec_sandbox_n exec_sandbox_0 exec_host_n exec_host_0 || return 1
    local s=$SCRATCH ratios perexec_sb perexec_host
    # Per round: (sandbox(N) - sandbox(0)) / (host(N) - host(0)), i.e. per-exec cost only.
    ratios=$(paste $s/exec_sandbox_n.times $s/exec_sandbox_0.times $s/exec_host_n.times $s/exec_host_0.times |
        awk '{ printf "%.6f\n", ($1 - $2) / ($3 - $4) }')
    perexec_sb=$(paste $s/exec_sandbox_n.times $s/exec_sandbox_0.times | awk -v n="$EXEC_N" '{ printf "%.1f\n", ($1 - $2) / n }')
    perexec_host=$(paste $s/exec_host_n.times $s/exec_host_0.times | awk -v n="$EXEC_N" '{ printf "%.1f\n", ($1 - $2) / n }')
    echo "RESULT exec n=$EXEC_ROUNDS loop=$EXEC_N ratio=$(summary <<<"$ratios" | tr ' ' ,)" \
        "sandbox_per_exec_us=$(summary <<<"$perexec_sb" | tr ' ' ,)" \
        "host_per_exec_us=$(summary <<<"$perexec_host" | tr ' ' ,)" \
        "sandbox_fixed_us=$(summary <$s/exec_sandbox_0.times | tr ' ' ,)" \
        "host_fixed_us=$(summary <$s/exec_host_0.times | tr ' ' ,)"
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

worker()
{
    SCRATCH=$(mktemp -d "${TMPDIR:-/tmp}/sandbench-bench.XXXXXX") || exit 1
    SHM_STATE=
    [[ $(stat -f -c %T /dev/shm 2>/dev/null) == tmpfs ]] &&
        SHM_STATE=$(mktemp -d /dev/shm/sandbench-bench.XXXXXX 2>/dev/null)
    trap 'rm -rf "$SCRATCH" ${SHM_STATE:+"$SHM_STATE"}' EXIT
    WORKSPACE=$SCRATCH/workspace
    mkdir -p "$WORKSPACE" "$SCRATCH/state"
    echo "a small project" >"$WORKSPACE/README"
    cd "$WORKSPACE" || exit 1
    export XDG_STATE_HOME=$SCRATCH/state # sessions land here and go with the scratch folder
    export XDG_RUNTIME_DIR=$SCRATCH/runtime
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
    bench_rss || { echo "RESULT failed what=rss"; failed=1; }
    return $failed
}

if ((WORKER)); then
    worker
    exit $?
fi

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
done

# field RESULT-LINE KEY [INDEX]: value of KEY=a,b,c (INDEX 1-based, default 1)
field() { sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1" | cut -d, -f"${3:-1}"; }
ms() { awk -v u="$1" 'BEGIN { if (u == "") print "-"; else printf "%.1f", u / 1000 }'; }
us() { awk -v u="$1" 'BEGIN { if (u == "") print "-"; else printf "%.0f", u }'; }
mb() { awk -v k="$1" 'BEGIN { if (k == "") print "-"; else printf "%.1f", k / 1024 }'; }
x() { awk -v v="$1" 'BEGIN { if (v == "") print "-"; else printf "%.2f×", v }'; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN { if (v == "") print "did not run"; else print (v <= t) ? "met" : "NOT met" }'; }

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
    for who in "${RUNS[@]}"; do
        line=$(grep '^RESULT exec ' <<<"${OUT[$who]}")
        r=$(field "$line" ratio)
        echo "| 2. per-exec, loop of $(field "$line" loop) (n=$(field "$line" n)) | $who | $(us "$(field "$line" sandbox_per_exec_us)") µs/exec | host $(us "$(field "$line" host_per_exec_us)") µs/exec | $(x "$r") [$(x "$(field "$line" ratio 2)")–$(x "$(field "$line" ratio 3)")] | ≤ 1.05× | $(verdict "$r" 1.05) |"
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
}

TABLE=$(table)
echo
echo "$TABLE"
for who in "${RUNS[@]}"; do
    grep -q '^RESULT failed' <<<"${OUT[$who]}" && { note "as $who: $(grep '^RESULT failed' <<<"${OUT[$who]}" | tr '\n' ' ')"; status=1; }
done

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
