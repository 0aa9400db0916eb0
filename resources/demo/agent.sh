# The Sandbench demo agent: a scripted stand-in for an AI coding agent. It does what agents do
# (reads, edits, tests) and tries what they must not (secrets, the host, the network), so the
# demo shows both sides of the sandbox. It runs with bash inside the sandbox.
say() { printf '\033[1;36m[agent]\033[0m %s\n' "$*"; }
try() {
    local what=$1; shift
    if "$@" >/dev/null 2>&1; then printf '  \033[31mALLOWED\033[0m %s\n' "$what"
    else printf '  \033[32mblocked\033[0m %s\n' "$what"; fi
}

export PYTHONDONTWRITEBYTECODE=1 # keep the review about the agent's edits

say "looking at the project in $PWD"
ls -A
say "running the tests before the fix"
python3 -m unittest discover -s tests -t . 2>&1 | tail -n 3

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

say "trying what a sandboxed agent must not do:"
try "read ~/.ssh/id_ed25519"        cat "$HOME/.ssh/id_ed25519"
try "write to /usr/bin"              touch /usr/bin/sandbench-demo
try "write to /etc/passwd"           sh -c 'echo x >> /etc/passwd'
try "see the host's processes"       sh -c '[ "$(ls -d /proc/[0-9]* | wc -l)" -gt 20 ]'
try "connect to the internet"        timeout 3 bash -c 'exec 3<>/dev/tcp/1.1.1.1/443'
try "mount a file system"            mount -t tmpfs none /tmp
say "done; nothing reached the real project: review the changes below"
