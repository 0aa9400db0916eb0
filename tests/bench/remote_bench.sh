#!/bin/bash
# Remote sessions over loopback ssh against local ones (issue 40): an sshd of this script's own on
# a free 127.0.0.1 port (host key, user key, an ssh config with the alias sbbench), the sessions
# in a private XDG folder, then build/tests/bench/remote_bench (see its comment) on them.
#
#   tests/bench/remote_bench.sh [BUILD_DIR] [--rounds N] [--mib N] [--flood-rounds N]
set -euo pipefail
build=$(realpath "${1:-build}")
shift || true
rounds=50 mib=50 flood_rounds=5
while (($#)); do
    case $1 in
        --rounds) rounds=$2; shift 2 ;;
        --mib) mib=$2; shift 2 ;;
        --flood-rounds) flood_rounds=$2; shift 2 ;;
        *) echo "remote_bench.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
cli=$build/app/sandbench-cli
for program in /usr/sbin/sshd /usr/bin/ssh /usr/bin/ssh-keygen "$cli" "$build/tests/bench/remote_bench"; do
    [[ -x $program ]] || { echo "remote_bench.sh: $program is missing" >&2; exit 1; }
done
dir=$(mktemp -d)
sshd=""
cleanup() {
    for id in ask flood-local flood-remote; do "$cli" kill "$id" >/dev/null 2>&1 || true; done
    [[ -n $sshd ]] && kill "$sshd" 2>/dev/null && wait "$sshd" 2>/dev/null
    rm -rf "$dir"
}
trap cleanup EXIT
export HOME=$dir/home XDG_STATE_HOME=$dir/state XDG_DATA_HOME=$dir/data XDG_RUNTIME_DIR=$dir/run
mkdir -p "$HOME" "$dir/ws" "$dir/bin" "$XDG_STATE_HOME" "$XDG_DATA_HOME"
mkdir -m 700 "$XDG_RUNTIME_DIR"
ln -s "$cli" "$dir/bin/sandbench-cli"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
user=$(id -un)
cd "$dir"
ssh-keygen -q -t ed25519 -N '' -f host_key
ssh-keygen -q -t ed25519 -N '' -f client
cp client.pub authorized_keys
printf '[127.0.0.1]:%s %s\n' "$port" "$(cut -d' ' -f1,2 host_key.pub)" >known_hosts
cat >login.sh <<EOF
#!/bin/sh
export HOME=$HOME XDG_STATE_HOME=$XDG_STATE_HOME XDG_DATA_HOME=$XDG_DATA_HOME XDG_RUNTIME_DIR=$XDG_RUNTIME_DIR
export PATH=$dir/bin:/usr/sbin:/usr/bin:/sbin:/bin
exec /bin/sh -c "\$SSH_ORIGINAL_COMMAND"
EOF
chmod 700 login.sh
cat >sshd_config <<EOF
ListenAddress 127.0.0.1:$port
HostKey $dir/host_key
AuthorizedKeysFile $dir/authorized_keys
AllowUsers $user
ForceCommand $dir/login.sh
PidFile none
UsePAM no
StrictModes no
PasswordAuthentication no
KbdInteractiveAuthentication no
EOF
cat >ssh_config <<EOF
Host sbbench
  HostName 127.0.0.1
  Port $port
  User $user
  IdentityFile $dir/client
  IdentitiesOnly yes
  UserKnownHostsFile $dir/known_hosts
  GlobalKnownHostsFile /dev/null
  StrictHostKeyChecking yes
  LogLevel ERROR
EOF
if [[ $(id -u) -eq 0 ]]; then
    unshare -m sh -c 'mount -t tmpfs -o mode=755 tmpfs /run && mkdir -m 755 /run/sshd &&
      exec /usr/sbin/sshd -D -e -f "$1"' sh "$dir/sshd_config" </dev/null >sshd.log 2>&1 &
else
    /usr/sbin/sshd -D -e -f "$dir/sshd_config" </dev/null >sshd.log 2>&1 &
fi
sshd=$!
for _ in $(seq 100); do grep -q 'Server listening' sshd.log && break; sleep 0.1; done
grep -q 'Server listening' sshd.log || { cat sshd.log >&2; exit 1; }

cat >ask.json <<'EOF'
{"version": 1, "network": {"mode": "none"},
 "commands": {"default": "allow", "rules": [{"action": "ask", "match": "touch asked*"}]},
 "approvals": {"timeout_seconds": 600}}
EOF
"$cli" start --workspace "$dir/ws" --name ask --policy "$dir/ask.json" >/dev/null
# No echo and no newline: the terminal's output is the flood's bytes, no more.
flood="stty -echo; while read key; do head -c $((mib * 1048576)) /dev/zero | tr '\\0' x; done"
for id in flood-local flood-remote; do
    "$cli" run --headless --size 50x200 --network none --workspace "$dir/ws" --session-id "$id" \
        -- sh -c "$flood" >/dev/null 2>&1 &
done
for _ in $(seq 100); do
    [[ -S $XDG_RUNTIME_DIR/sandbench/flood-local.sock && -S $XDG_RUNTIME_DIR/sandbench/flood-remote.sock ]] && break
    sleep 0.1
done
SANDBENCH_SSH="ssh -F $dir/ssh_config" "$build/tests/bench/remote_bench" --host ssh://sbbench \
    --ask ask --flood-local flood-local --flood-remote flood-remote --rounds "$rounds" \
    --mib "$mib" --flood-rounds "$flood_rounds"
