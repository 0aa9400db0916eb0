#!/usr/bin/env bash
# The Debian package, for real: builds it with CPack from the build folder, checks it (its
# contents and dependencies, lintian, desktop-file-validate, appstreamcli), installs it with
# dpkg, runs what it installed (doctor, a sandboxed command, the demo with its approval answered
# through the CLI, the window on an Xvfb display), removes it, and checks that none of its files
# remain.
#
#   package-test.sh BUILD_DIR CPACK
#
# Installing into /usr needs root: as another user the test reports skipped (77), also under
# SANDBENCH_MUST_WORK=1, since it cannot run at all there (scripts/test.sh runs it as root).
# As root, a missing tool, or a sandbench already installed on this machine (which the test
# would replace and then remove), is a skip, and a failure under SANDBENCH_MUST_WORK=1.
# Whatever happens, the package is removed on exit. Everything runs on loopback only.
set -euo pipefail

build=$(cd "$1" && pwd)
cpack=$2

skip() {
    if [ "${SANDBENCH_MUST_WORK:-}" = 1 ]; then
        echo "FAIL: would skip, but SANDBENCH_MUST_WORK=1: $*" >&2
        exit 1
    fi
    echo "SKIP: $*"
    exit 77
}
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
step() { echo "== $*"; }

if [ "$(id -u)" -ne 0 ]; then
    echo "SKIP: installing the package needs root (scripts/test.sh runs this test as root)"
    exit 77
fi
for tool in dpkg dpkg-deb dpkg-shlibdeps lintian desktop-file-validate appstreamcli Xvfb \
    xwininfo python3 man; do
    command -v "$tool" >/dev/null || skip "$tool is missing (scripts/deps.sh installs it)"
done
installed() { dpkg-query -W -f='${db:Status-Status}' sandbench 2>/dev/null | grep -qx installed; }
if installed || dpkg-query -W sandbench >/dev/null 2>&1; then
    skip "a sandbench package is already on this machine; the test would replace and remove it"
fi
for f in /usr/bin/sandbench /usr/bin/sandbench-cli /usr/share/sandbench; do
    [ ! -e "$f" ] || skip "$f exists outside any package; the test would overwrite and remove it"
done

tmp=$(mktemp -d /tmp/sandbench-package.XXXXXX)
pids=()
cleanup() {
    local status=$?
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
    if dpkg-query -W sandbench >/dev/null 2>&1; then
        echo "== removing the package (cleanup)"
        dpkg --purge sandbench >/dev/null || echo "cleanup: dpkg --purge sandbench failed" >&2
    fi
    rm -rf "$tmp"
    exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

# The installed programs run in a world of their own: no variable of the caller's may point
# them elsewhere (SANDBENCH_DATA_DIR, SANDBENCH_CLI…), and their sessions stay in $tmp.
mkdir -p "$tmp"/{home,run,state,data,config,workspace,pkg}
chmod 700 "$tmp/run"
installed_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$tmp/home" USER=root
    LANG=C.UTF-8 TMPDIR=/tmp XDG_RUNTIME_DIR="$tmp/run" XDG_STATE_HOME="$tmp/state"
    XDG_DATA_HOME="$tmp/data" XDG_CONFIG_HOME="$tmp/config")
cli() { "${installed_env[@]}" /usr/bin/sandbench-cli "$@"; }
# What the installed bash completion offers for the words given (the last is being completed).
completions() {
    "${installed_env[@]}" bash -c '
        source /usr/share/bash-completion/bash_completion 2>/dev/null || true
        source /usr/share/bash-completion/completions/sandbench-cli
        COMP_WORDS=("$@") COMP_CWORD=$(($# - 1)) COMP_LINE="$*" COMP_POINT=${#COMP_LINE}
        _sandbench_cli 2>/dev/null
        printf "%s\n" "${COMPREPLY[@]}" | sort -u | xargs' completion sandbench-cli "$@"
}
expect_completions() { # EXPECTED WORDS…
    local got
    got=$(completions "${@:2}")
    [ "$got" = "$1" ] || fail "completing '${*:2}' offered '$got', not '$1'"
}

step "building the package (cpack -G DEB)"
"$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 ||
    { cat "$tmp/cpack.log"; fail "cpack failed"; }
debs=("$tmp"/pkg/*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "cpack made no single .deb: ${debs[*]}"
deb=${debs[0]}
echo "$deb"

step "the package's fields and contents"
dpkg-deb --field "$deb" Package Version Architecture Depends Recommends
depends=$(dpkg-deb --field "$deb" Depends)
for lib in libc6 libqt6widgets6 libqt6svg6 libsqlite3-0 libvterm0 libzstd1; do
    grep -q "\b$lib\b" <<<"$depends" || fail "Depends lacks $lib (dpkg-shlibdeps): $depends"
done
dpkg-deb --contents "$deb" | awk '{print $6}' | sed 's|^\./|/|' >"$tmp/contents"
app=io.github.sandbench.Sandbench
expected=(/usr/bin/sandbench /usr/bin/sandbench-cli
    /usr/share/applications/$app.desktop /usr/share/metainfo/$app.metainfo.xml
    /usr/share/icons/hicolor/scalable/apps/$app.svg
    /usr/share/man/man1/sandbench.1.gz /usr/share/man/man1/sandbench-cli.1.gz
    /usr/share/bash-completion/completions/sandbench-cli
    /usr/share/doc/sandbench/copyright /usr/share/doc/sandbench/changelog.gz
    /usr/share/sandbench/presets/generic.json /usr/share/sandbench/presets/offline.json
    /usr/share/sandbench/demo/agent.sh /usr/share/sandbench/demo/workspace/calc.py
    /usr/share/sandbench/model-prices.json)
for size in 16 22 24 32 48 64 128 256; do
    expected+=("/usr/share/icons/hicolor/${size}x${size}/apps/$app.png")
done
for f in "${expected[@]}"; do
    grep -qx "$f" "$tmp/contents" || fail "the package lacks $f"
done
if grep -E '\.qm$|__pycache__|\.pyc$' "$tmp/contents"; then
    fail "the package carries files it should not (translations are compiled in)"
fi

step "lintian"
# lintian runs as root, with a warning that it would rather not; its temporary files go to $tmp.
lintian_out=$(TMPDIR="$tmp" lintian --tag-display-limit 0 --display-info "$deb" 2>&1) || true
echo "$lintian_out"
if grep -q '^E: ' <<<"$lintian_out"; then fail "lintian reports errors"; fi

step "installing (dpkg -i)"
dpkg -i "$deb" >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg -i failed"; }
installed || fail "dpkg says sandbench is not installed"
dpkg -L sandbench | sort >"$tmp/files"

step "the desktop file and the AppStream metainfo"
desktop-file-validate /usr/share/applications/$app.desktop
appstreamcli validate --no-net /usr/share/metainfo/$app.metainfo.xml
version=$(cli --version)
release=$(python3 -c 'import sys, xml.etree.ElementTree as t
print(t.parse(sys.argv[1]).getroot().find("releases/release").get("version"))' \
    /usr/share/metainfo/$app.metainfo.xml)
[ "$release" = "$version" ] ||
    fail "the metainfo's newest release is $release, the program's version $version"
grep -q "^Exec=sandbench$" /usr/share/applications/$app.desktop
grep -q "^Icon=$app$" /usr/share/applications/$app.desktop

step "sandbench-cli loads no C++ library, nor SQLite, libvterm, zstd, civetweb or libseccomp, at start (it starts every sandbox)"
if readelf -d /usr/bin/sandbench-cli | grep -E 'NEEDED.*(libstdc\+\+|libgcc_s|libspdlog|libfmt|libsqlite3|libvterm|libzstd|libcivetweb|libseccomp)'; then
    fail "sandbench-cli loads a library at start that it should not (app/CMakeLists.txt, core/base/LazyLibrary.h, core/sandbox/SeccompRules.h)"
fi

step "sandbench-cli doctor"
cli doctor || fail "the installed sandbench-cli doctor says sandboxes cannot run here"

step "a sandboxed command from the installed files"
# The presets are found where the package put them: the error names them all.
if cli run --preset no-such-preset --workspace "$tmp/workspace" -- true 2>"$tmp/err"; then
    fail "an unknown preset was accepted"
fi
grep -q "aider, claude-code, codex, generic, offline" "$tmp/err" ||
    fail "the installed presets were not found: $(cat "$tmp/err")"
cli run --network none --workspace "$tmp/workspace" --session-id pkg-run -- true ||
    fail "sandbench-cli run -- true failed"
cli run --network none --workspace "$tmp/workspace" --session-id pkg-write -- \
    sh -c 'echo made inside > made-inside.txt' || fail "a write in the sandbox failed"
[ ! -e "$tmp/workspace/made-inside.txt" ] || fail "the sandbox wrote into the real folder"
cli changes pkg-write | grep -q "A made-inside.txt" ||
    fail "the write is not among the session's changes: $(cli changes pkg-write)"

step "bash completion: subcommands, presets, session ids"
expect_completions "apply approve" ap
expect_completions "claude-code codex" run --preset c
expect_completions "none" run --network n
expect_completions "pkg-run pkg-write" changes pkg-
expect_completions "pkg-write" show pkg-w
expect_completions "allow deny" approve pkg-run 1 ""

step "the man page and the completion agree with --help"
subcommands=$(cli --help | sed -n '/^Subcommands:/,$p' | awk 'NF && !/^Subcommands:/ {print $1}' |
    sort | xargs)
[ -n "$subcommands" ] || fail "no subcommands in sandbench-cli --help"
offered=$(completions "" | tr ' ' '\n' | grep -v '^-' | sort | xargs)
[ "$offered" = "$subcommands" ] ||
    fail "the completion offers '$offered'; --help lists '$subcommands'"
# Plain text, since man's output is not a terminal.
manual=$(MANWIDTH=200 man -l /usr/share/man/man1/sandbench-cli.1.gz 2>/dev/null)
warnings=$(MANWIDTH=80 man --warnings -l /usr/share/man/man1/sandbench-cli.1.gz 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "groff warns about the man page: $warnings"
for sub in $subcommands; do
    grep -qE "^ {7}$sub( |$)" <<<"$manual" || fail "the man page does not describe '$sub'"
    options=$(cli "$sub" --help | grep -oE '^ +(-[a-z],)?--[a-z-]+' | grep -oE -- '--[a-z-]+')
    for option in $options; do
        [ "$option" = --help ] && continue
        grep -qF -- "$option" <<<"$manual" || fail "the man page lacks $sub $option"
        completions "$sub" -- | tr ' ' '\n' | grep -qx -- "$option" ||
            fail "the completion of '$sub' lacks $option"
    done
done

step "a recording replayed from its middle: libvterm and zstd, opened when first needed"
cli run --network none --workspace "$tmp/workspace" --session-id pkg-print -- \
    sh -c 'seq 1 400; sleep 0.4; echo later' >/dev/null || fail "a command with output failed"
cli replay pkg-print --from 0.2 >"$tmp/replay" 2>&1 || fail "replay --from failed: $(cat "$tmp/replay")"
grep -q "400" "$tmp/replay" && grep -q "later" "$tmp/replay" ||
    fail "the replay from 0.2 s lacks the screen then or the later output: $(cat "$tmp/replay")"

step "the demo from the installed files, its approval answered with sandbench-cli approve"
cli demo --session-id pkg-demo </dev/null >"$tmp/demo.log" 2>&1 &
demo_pid=$!
pids+=("$demo_pid")
answered=""
for _ in $(seq 1 600); do
    # Until the session is up, pending prints nothing (and python3 finds no JSON).
    request=$(cli pending pkg-demo --json 2>/dev/null | python3 -c 'import json, sys
for r in json.load(sys.stdin):
    if r["kind"] == "command" and r["argv"][:2] == ["rm", "-rf"]: print(r["id"])' 2>/dev/null ||
        true)
    if [ -n "$request" ]; then
        expect_completions "pkg-demo" attach pkg-
        cli approve pkg-demo "$request" deny
        answered=yes
        break
    fi
    kill -0 "$demo_pid" 2>/dev/null || break
    sleep 0.1
done
demo_status=0
wait "$demo_pid" || demo_status=$?
cat "$tmp/demo.log"
[ -n "$answered" ] || fail "the demo's rm -rf never waited for an approval"
[ "$demo_status" -eq 0 ] || fail "the demo exited with $demo_status"
for expected_line in "200: Team guidelines" "403 Forbidden" "rm -rf ~/.ssh was refused" \
    "the allowed one answered 1 request(s); the denied one received 0" "M calc.py" \
    "A tests/test_empty.py"; do
    grep -qF "$expected_line" "$tmp/demo.log" || fail "the demo did not print: $expected_line"
done
if grep -q "ALLOWED" "$tmp/demo.log"; then fail "the demo agent did something it must not"; fi

step "the installed window's language: --lang, SANDBENCH_LANG, the system's (compiled-in .qm)"
gui_help() { "${installed_env[@]}" QT_QPA_PLATFORM=offscreen "$@" /usr/bin/sandbench --help; }
german="KI-Programmieragenten in einer lokalen Sandbox beaufsichtigen."
english="Supervise AI coding agents in a local sandbox."
gui_help | grep -qF "$english" || fail "sandbench --help is not in English under LANG=C.UTF-8"
for how in "SANDBENCH_LANG=de" "LANGUAGE=de LANG=de_DE.UTF-8"; do
    # shellcheck disable=SC2086 # the words are VAR=value pairs for env
    gui_help $how | grep -qF "$german" || fail "sandbench --help is not in German with $how"
done
"${installed_env[@]}" QT_QPA_PLATFORM=offscreen /usr/bin/sandbench --lang de --help |
    grep -qF "$german" || fail "sandbench --lang de --help is not in German"

step "the window on an X display (Xvfb), found with xwininfo"
# Xvfb picks a free display itself and writes its number to fd 3.
Xvfb -displayfd 3 -nolisten tcp -screen 0 1280x900x24 3>"$tmp/display" >"$tmp/xvfb.log" 2>&1 &
pids+=($!)
display=""
for _ in $(seq 1 200); do
    display=$(head -n 1 "$tmp/display")
    [ -n "$display" ] && break
    sleep 0.1
done
[ -n "$display" ] || fail "Xvfb did not start: $(cat "$tmp/xvfb.log")"
"${installed_env[@]}" DISPLAY=":$display" QT_QPA_PLATFORM=xcb /usr/bin/sandbench \
    >"$tmp/gui.log" 2>&1 &
gui_pid=$!
pids+=("$gui_pid")
# Qt also makes an unmapped 1x1 helper window with the same title: look for a mapped one.
viewable_window() {
    local id
    for id in $(DISPLAY=":$display" xwininfo -root -tree 2>/dev/null |
        sed -n 's/^ *\(0x[0-9a-f]*\) "Sandbench": .*/\1/p'); do
        if DISPLAY=":$display" xwininfo -id "$id" 2>/dev/null | grep -q "Map State: IsViewable"
        then
            echo "$id"
            return
        fi
    done
}
window=""
for _ in $(seq 1 300); do
    window=$(viewable_window)
    [ -n "$window" ] && break
    kill -0 "$gui_pid" 2>/dev/null || { cat "$tmp/gui.log"; fail "the window program exited"; }
    sleep 0.1
done
[ -n "$window" ] || { cat "$tmp/gui.log"; fail "no viewable window titled Sandbench appeared"; }
DISPLAY=":$display" xwininfo -id "$window" | grep -E "xwininfo:|Width|Height|Map State"
kill "$gui_pid"
wait "$gui_pid" 2>/dev/null || true

step "removing the package (dpkg --purge)"
dpkg --purge sandbench >"$tmp/dpkg.log" 2>&1 || { cat "$tmp/dpkg.log"; fail "dpkg --purge failed"; }
! dpkg-query -W sandbench >/dev/null 2>&1 || fail "dpkg still knows the package"
left=()
while read -r path; do
    [ -e "$path" ] || [ -L "$path" ] || continue
    # A folder other packages also own (/usr/share/man/man1…), or that holds files of others,
    # stays, and rightly.
    if [ -d "$path" ] && ! [ -L "$path" ]; then
        dpkg -S "$path" >/dev/null 2>&1 && continue
        [ -n "$(ls -A "$path")" ] && continue
    fi
    left+=("$path")
done <"$tmp/files"
[ ${#left[@]} -eq 0 ] || fail "left behind after removal: ${left[*]}"
echo "the package installed, ran and left nothing behind"
